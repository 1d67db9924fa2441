"""trample's benchmarks: each bench_*.py runs side by side with its alternatives and prints ratios."""
