# Type stubs of the native half of resource_pool (PyO3). The public API is in __init__.py
# and verl.py, which call these.
from os import PathLike
from typing import Tuple, Any, Dict, List, Mapping, Optional, Sequence, Union

__version__: str

class Report:
    """What a check found (``resource_pool.check``, ``resource_pool.verl.check``)."""

    @property
    def ok(self) -> bool:
        """Whether the check passes: what the CLI's exit status 0 means."""
    @property
    def feasible(self) -> Optional[bool]:
        """Placeable, not placeable, or ``None`` (undecided, or nothing checked)."""
    @property
    def ray(self) -> Optional[str]:
        """``"places"``, ``"hangs"``, ``"depends_on_ties"`` or ``None``."""
    @property
    def placement(self) -> List[Dict[str, Any]]:
        """``[{"pool": str, "slot": int, "node": str}, ...]``: a placement of every slot."""
    @property
    def ray_placement(self) -> List[Dict[str, Any]]:
        """Where Ray's scheduler puts the slots it places."""
    @property
    def diagnostics(self) -> List[Dict[str, Any]]:
        """``[{"code", "severity", "message", "help", "file", "line", "column"}, ...]``."""
    @property
    def suggestions(self) -> List[Dict[str, Any]]:
        """The suggested layouts, as ``as_dict()["suggestions"]``: ``[{"when", "pools",
        "accelerators", "overrides", "undecided"}, ...]`` (``"holders"`` too for
        ``"idle"``); empty when none is suggested."""
    @property
    def ray_version(self) -> Optional[str]:
        """The Ray version a live dashboard said it runs (``None`` for other sources)."""
    @property
    def config(self) -> Optional[str]:
        """The config checked, as TOML (``check`` only)."""
    def as_dict(self) -> Dict[str, Any]:
        """The JSON result, as ``--format json`` prints it."""
    def render(self, colour: bool = False) -> str:
        """The CLI's human report, with ANSI colours when ``colour``."""
    def raise_for_problems(self) -> "Report":
        """Raises ``LayoutError`` unless ``ok``; returns the report."""

class LintReport:
    """What ``resource_pool.lint`` found in one config."""

    @property
    def ok(self) -> bool: ...
    @property
    def diagnostics(self) -> List[Dict[str, Any]]: ...
    def render(self, colour: bool = False) -> str: ...
    def raise_for_problems(self) -> "LintReport": ...

_Cluster = Union[str, "PathLike[str]", Dict[str, Any], None]

def check(
    resource_pool_spec: Mapping[str, Sequence[int]],
    mapping: Mapping[Any, str],
    max_colocate_count: Optional[int],
    accelerator: str,
    cluster: _Cluster,
    ray: Optional[str],
    timeout: float,
    verl_version: Optional[str],
) -> Report: ...
def lint(
    path: Optional[str], text: Optional[str], overrides: List[str], any_roles: bool
) -> LintReport: ...
def verl_check(
    path: Optional[str],
    text: Optional[str],
    overrides: List[str],
    cluster: _Cluster,
    ray: Optional[str],
    timeout: float,
    verl_version: Optional[str],
    from_launch: bool = ...,
    ray_address: Optional[str] = ...,
    no_cluster: Optional[str] = ...,
    api_server_address: Optional[str] = ...,
    python: Optional[str] = ...,
    probe_script: Optional[str] = ...,
) -> Report: ...
def run_cli(args: List[str]) -> int: ...
def guard_launch_check(
    version: str,
    pools_json: str,
    roles_json: str,
    max_colocate_count: Optional[int],
    cluster: str,
    capacity_known: bool,
) -> Tuple[str, str]: ...
def guard_pool_check(
    pool: str, groups_json: str, free: str, capacity: Optional[str] = ...
) -> Tuple[str, str]: ...
