"""The .npy writer of the engines' blocks (the ``BLOCKS`` capability): a header of a fixed size, written before
the rows and rewritten in place with the row count when a listing stops early (``trample enumerate --format npy``,
docs/scale.md)."""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

from ..documents import any_digits

NPY_HEADER = 128  # bytes: fixed, so the shape can be rewritten in place if enumeration stops early


def npy_header(dtype: npt.DTypeLike, shape: tuple[int, int], size: int = NPY_HEADER) -> bytes:
    """A .npy header padded to exactly ``size`` bytes (so it can be rewritten in place with a smaller row count):
    version 1.0, or 2.0 when ``size`` is past version 1.0's 64 KiB. :func:`npy_header_size` gives a size that
    fits ``shape``."""
    body = _header_text(dtype, shape)
    v2 = size - 10 > 0xFFFF
    prefix = 12 if v2 else 10
    pad = size - prefix - len(body) - 1
    if pad < 0:
        raise ValueError(f"npy header too long: {len(body)} characters do not fit in {size} bytes")
    if v2:
        return b"\x93NUMPY\x02\x00" + struct.pack("<I", size - 12) + (body + " " * pad + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", size - 10) + (body + " " * pad + "\n").encode("latin1")


def npy_header_size(dtype: npt.DTypeLike, shape: tuple[int, int]) -> int:
    """The header size for ``shape``: 128 bytes, or the next multiple of 64 that holds a longer row count (a
    count of thousands of digits gets a header of that many bytes)."""
    text = _header_text(dtype, shape)
    need = 12 + len(text) + 1
    return max(NPY_HEADER, -(-need // 64) * 64)


def _header_text(dtype: npt.DTypeLike, shape: tuple[int, int]) -> str:
    descr = np.lib.format.dtype_to_descr(np.dtype(dtype))
    with any_digits():
        return f"{{'descr': {descr!r}, 'fortran_order': False, 'shape': ({shape[0]:d}, {shape[1]:d}), }}"
