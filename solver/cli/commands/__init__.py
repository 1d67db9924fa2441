"""The command groups of ``trample``, one module each (the model: pdm's ``cli/commands``): every module registers
its commands on the parser's subparsers with ``add_commands(subparsers)`` (``step`` also ``add_index_commands``:
sample, rank, unrank), called by :func:`trample.cli.build_parser` in the order of ``trample --help``."""
