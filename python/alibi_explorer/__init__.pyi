# Type stubs of alibi_explorer, so editors complete the names and check the keywords.
from os import PathLike
from typing import Any, Callable, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

Progress = Callable[[int, int], Optional[bool]]
DTypeName = Union[Literal["f32", "f64", "f16", "bf16", "float32", "float64", "float16", "bfloat16"], str, type, np.dtype]
Mask = Union[Literal["-1e9", "-inf", "min"], str, float]
ArrayLike = Any  # anything with the buffer protocol, __array__ or __dlpack__

class Cancelled(Exception): ...

class Tensor:
    """Core-owned memory behind every returned array (``array.base``); exports the buffer protocol."""
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> str: ...
    @property
    def metadata(self) -> dict[str, str]: ...
    @property
    def nbytes(self) -> int: ...

class Session:
    def __init__(self, **options: Any) -> None: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> Session: ...
    @staticmethod
    def from_json(text: str) -> Session: ...
    @staticmethod
    def from_dict(d: dict[str, Any]) -> Session: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...
    def replace(self, **options: Any) -> Session: ...
    def cli_command(self, subcommand: str = "bias", output: str = "bias.npy") -> str: ...
    def __eq__(self, other: object) -> bool: ...

class _Report:
    def to_dict(self) -> dict[str, Any]: ...
    def to_json(self) -> str: ...
    def __getattr__(self, name: str) -> Any: ...

class Diagnosis(_Report):
    borrowed: bool
    file: str
    shape: list[int]
    layout: str
    heads: int
    queries: int
    keys: int
    dtype: str
    match: Optional[dict[str, Any]]
    max_abs_error: float
    findings: list[str]
    finding_details: list[dict[str, str]]
    inferred_slopes: list[float]
    summary: str
    first_mismatch: Optional[dict[str, Any]]

class Stats(_Report):
    query: int
    query_position: int
    rows_averaged: int
    num_heads: int
    queries: int
    keys: int
    mode: str
    scheme: str
    content: str
    heads: list[dict[str, Any]]
    def to_csv(self) -> str: ...

class Figure:
    kind: Literal["png", "svg"]
    data: Union[bytes, str]
    def _repr_png_(self) -> Optional[bytes]: ...
    def _repr_svg_(self) -> Optional[str]: ...
    def to_array(self) -> npt.NDArray[np.uint8]: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...

def slopes(heads: Optional[int] = None, *, scheme: Optional[str] = None, max_bias: Optional[float] = None,
           slopes: Optional[Sequence[float]] = None, dtype: Optional[DTypeName] = None,
           session: Optional[Session] = None) -> npt.NDArray[Any]: ...

def bias(heads: Optional[int] = None, seq: Optional[int] = None, keys: Optional[int] = None, *,
         mode: Optional[str] = None, mask: Optional[Mask] = None, dtype: Optional[DTypeName] = None,
         layout: Optional[str] = None, scheme: Optional[str] = None, max_bias: Optional[float] = None,
         slopes: Optional[Sequence[float]] = None, arith: Optional[str] = None,
         preset: Optional[str] = None, from_config: Optional[Union[str, PathLike[str]]] = None,
         lengths: Optional[Union[Sequence[int], str]] = None, padding: Optional[str] = None,
         documents: Optional[Union[Sequence[int], str]] = None, window: Optional[int] = None,
         prefix: Optional[int] = None, positions: Optional[str] = None, max_memory: Optional[int] = None,
         session: Optional[Session] = None, threads: Optional[int] = None,
         progress: Optional[Progress] = None) -> npt.NDArray[Any]: ...

def attention(heads: Optional[int] = None, seq: Optional[int] = None, keys: Optional[int] = None, *,
              content: Optional[str] = None, seed: Optional[int] = None, sigma: Optional[float] = None,
              dk: Optional[int] = None, temperature: Optional[float] = None, mode: Optional[str] = None,
              mask: Optional[Mask] = None, dtype: Optional[DTypeName] = None, layout: Optional[str] = None,
              scheme: Optional[str] = None, max_bias: Optional[float] = None,
              slopes: Optional[Sequence[float]] = None, arith: Optional[str] = None,
         preset: Optional[str] = None, from_config: Optional[Union[str, PathLike[str]]] = None,
         lengths: Optional[Union[Sequence[int], str]] = None, padding: Optional[str] = None,
         documents: Optional[Union[Sequence[int], str]] = None, window: Optional[int] = None,
         prefix: Optional[int] = None, positions: Optional[str] = None, 
              max_memory: Optional[int] = None, session: Optional[Session] = None,
              threads: Optional[int] = None, progress: Optional[Progress] = None) -> npt.NDArray[Any]: ...

def stats(heads: Optional[int] = None, seq: Optional[int] = None, keys: Optional[int] = None, *,
          query: Optional[int] = None, content: Optional[str] = None, seed: Optional[int] = None,
          sigma: Optional[float] = None, dk: Optional[int] = None, temperature: Optional[float] = None,
          mode: Optional[str] = None, mask: Optional[Mask] = None, dtype: Optional[DTypeName] = None,
          layout: Optional[str] = None, scheme: Optional[str] = None, max_bias: Optional[float] = None,
          slopes: Optional[Sequence[float]] = None, arith: Optional[str] = None,
         preset: Optional[str] = None, from_config: Optional[Union[str, PathLike[str]]] = None,
         lengths: Optional[Union[Sequence[int], str]] = None, padding: Optional[str] = None,
         documents: Optional[Union[Sequence[int], str]] = None, window: Optional[int] = None,
         prefix: Optional[int] = None, positions: Optional[str] = None, batch_row: Optional[int] = None,
          max_memory: Optional[int] = None,
          session: Optional[Session] = None, threads: Optional[int] = None,
          progress: Optional[Progress] = None) -> Stats: ...

def diagnose(array: Union[str, bytes, PathLike[str], ArrayLike], *, name: Optional[str] = None,
             max_memory: Optional[int] = None, heads: Optional[int] = None, preset: Optional[str] = None,
             from_config: Optional[Union[str, PathLike[str]]] = None) -> Diagnosis: ...

def render(heads: Optional[int] = None, seq: Optional[int] = None, keys: Optional[int] = None, *,
           what: Optional[Literal["bias", "attention", "slopes", "distance", "attention-distance", "stages", "schemes",
                                  "extrapolation", "compare"]] = None,
           head: Optional[int] = None, colormap: Optional[str] = None, scale: Optional[str] = None,
           width: Optional[int] = None, height: Optional[int] = None, query: Optional[int] = None,
           content: Optional[str] = None, seed: Optional[int] = None, sigma: Optional[float] = None,
           dk: Optional[int] = None, temperature: Optional[float] = None, mode: Optional[str] = None,
           mask: Optional[Mask] = None, dtype: Optional[DTypeName] = None, layout: Optional[str] = None,
           scheme: Optional[str] = None, max_bias: Optional[float] = None,
           slopes: Optional[Sequence[float]] = None, arith: Optional[str] = None,
         preset: Optional[str] = None, from_config: Optional[Union[str, PathLike[str]]] = None,
         lengths: Optional[Union[Sequence[int], str]] = None, padding: Optional[str] = None,
         documents: Optional[Union[Sequence[int], str]] = None, window: Optional[int] = None,
         prefix: Optional[int] = None, positions: Optional[str] = None, batch_row: Optional[int] = None,
           pixel_ratio: Optional[Literal[1, 2, 4]] = None, format: Optional[Literal["png", "svg"]] = None,
           max_distance: Optional[int] = None, quantity: Optional[Literal["logit", "attention"]] = None,
           max_memory: Optional[int] = None, session: Optional[Session] = None,
           threads: Optional[int] = None, progress: Optional[Progress] = None) -> Figure: ...

class FitTable(_Report):
    columns: dict[str, npt.NDArray[Any]]
    similarity: list[dict[str, Any]]
    fitted_rows: dict[str, Any]
    heads: list[dict[str, Any]]
    def __getitem__(self, name: str) -> npt.NDArray[Any]: ...
    def __len__(self) -> int: ...
    def to_csv(self) -> str: ...

def fit(source: Union[str, PathLike[str], ArrayLike], *, heads: Optional[int] = None, scheme: Optional[str] = None,
        max_bias: Optional[float] = None, slopes: Optional[Sequence[float]] = None, preset: Optional[str] = None,
        from_config: Optional[Union[str, PathLike[str]]] = None, arith: Optional[str] = None,
        tensor: Optional[str] = None, layer: Optional[int] = None, batch: Optional[int] = None,
        values: Optional[Literal["probabilities", "scores"]] = None,
        rows: Optional[Union[str, tuple[Optional[int], Optional[int]], slice]] = None,
        order: Optional[Literal["index", "slope", "similarity"]] = None,
        similarity: Optional[Literal["profile", "map"]] = None, name: Optional[str] = None,
        threads: Optional[int] = None, progress: Optional[Progress] = None) -> FitTable: ...

def run(model: Optional[Union[str, PathLike[str]]] = None, text: Optional[str] = None, *,
        session: Optional[Union[Session, str, PathLike[str]]] = None, ids: Optional[Sequence[int]] = None,
        length: Optional[int] = None, slope_scale: Optional[float] = None, slope_scheme: Optional[str] = None,
        slope_max_bias: Optional[float] = None, head_slopes: Optional[dict[int, float]] = None, logits: bool = False,
        output: Optional[Union[str, PathLike[str]]] = None, max_memory: Optional[int] = None,
        threads: Optional[int] = None, progress: Optional[Progress] = None) -> dict[str, Any]: ...

def loss(model: Optional[Union[str, PathLike[str]]] = None, text: Optional[str] = None, *,
         session: Optional[Union[Session, str, PathLike[str]]] = None, ids: Optional[Sequence[int]] = None,
         length: Optional[int] = None, slope_scale: Optional[float] = None, slope_scheme: Optional[str] = None,
         slope_max_bias: Optional[float] = None, head_slopes: Optional[dict[int, float]] = None,
         max_memory: Optional[int] = None, threads: Optional[int] = None,
         progress: Optional[Progress] = None) -> npt.NDArray[np.float32]: ...
