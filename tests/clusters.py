"""The Dask cluster the arena tests start: a LocalCluster on 127.0.0.1, two in-process workers of one thread
each, no dashboard (distributed is optional: the caller has ``pytest.importorskip("distributed")``)."""

from __future__ import annotations

from typing import Any


def local_cluster(distributed: Any, n_workers: int = 2) -> Any:
    return distributed.LocalCluster(
        host="127.0.0.1",
        n_workers=n_workers,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    )
