"""Other people's packages, fetched from the registries at test time: a pinned version,
checked against the registry's own digest, unpacked once into a cache.

Nothing fetched here is committed: the products' descriptions (Stripe's SDK types, Jira's
OpenAPI, zenpy's objects) and other people's test suites are read where they are unpacked.
The cache is ``$WORKGYM_REGISTRY_CACHE``, else ``~/.cache/workgym/registry``."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

import httpx

NPM = "https://registry.npmjs.org"
PYPI = "https://pypi.org/simple"


class RegistryError(RuntimeError):
    """A package could not be fetched or did not match its registry's digest."""


def cache_dir() -> Path:
    root = os.environ.get("WORKGYM_REGISTRY_CACHE") or Path.home() / ".cache/workgym/registry"
    return Path(root)


def npm_package(name: str, version: str) -> Path:
    """The unpacked ``package/`` folder of npm's ``name@version`` (its sha512 checked)."""
    def fetch(client: httpx.Client) -> tuple[str, str, str]:
        meta = _get(client, f"{NPM}/{name}/{version}").json()
        algo, _, digest = meta["dist"]["integrity"].partition("-")
        return meta["dist"]["tarball"], algo, base64.b64decode(digest).hex()
    return _unpacked("npm", name, version, fetch) / "package"


def pypi_sdist(name: str, version: str) -> Path:
    """The unpacked source distribution of PyPI's ``name==version`` (its sha256 checked): the
    folder holding its ``setup.py``/``pyproject.toml`` (and its tests, where it ships them)."""
    def fetch(client: httpx.Client) -> tuple[str, str, str]:
        index = _get(client, f"{PYPI}/{name}/",
                     headers={"Accept": "application/vnd.pypi.simple.v1+json"}).json()
        for file in index["files"]:
            stem = file["filename"].removesuffix(".tar.gz")
            if file["filename"].endswith(".tar.gz") and stem.rpartition("-")[2] == version:
                return file["url"], "sha256", file["hashes"]["sha256"]
        raise RegistryError(f"PyPI has no sdist of {name}=={version}")
    root = _unpacked("pypi", name, version, fetch)
    (inner,) = [p for p in root.iterdir() if p.is_dir()]
    return inner


def _unpacked(kind: str, name: str, version: str, fetch: object) -> Path:
    target = cache_dir() / kind / f"{name.replace('/', '+')}-{version}"
    if (target / ".complete").exists():
        return target
    with httpx.Client(timeout=120, follow_redirects=True) as client:
        url, algo, digest = fetch(client)  # type: ignore[operator]
        data = _get(client, url).content
    if hashlib.new(algo, data).hexdigest() != digest:
        raise RegistryError(f"{kind} {name} {version}: {url} does not match its {algo} digest")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-"))
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        archive.extractall(staging, filter="data")
    (staging / ".complete").write_text(f"{url}\n{algo} {digest}\n")
    try:
        staging.rename(target)  # atomic: a parallel worker that won the race keeps its copy
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _get(client: httpx.Client, url: str, **kwargs: object) -> httpx.Response:
    try:
        response = client.get(url, **kwargs)  # type: ignore[arg-type]
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise RegistryError(f"could not fetch {url}: {exc}") from exc
    return response
