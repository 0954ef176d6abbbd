"""What every HTML page WorkGym serves (the telemetry store's, the replicas' browser pages)
answers with: it loads nothing from anywhere, runs no script, posts forms only to its own
site, is never framed, cached, sniffed or named in a Referer (page URLs may carry secrets: a
signed link, a client secret); and what a browser's state-changing request must show to be
one of this site's own pages' (:func:`cross_site`)."""

from __future__ import annotations

from urllib.parse import urlsplit

from .asgi import READ_METHODS

PAGE_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
}


def wants_html(accept: str | None) -> bool:
    """Whether a request's ``Accept`` is a browser's (it names text/html), not an API
    client's (JSON, ``*/*`` or none): a page answers the one, JSON the other."""
    return any(kind.split(";")[0].strip().lower() == "text/html" and "q=0;" not in
               kind.replace(" ", "") + ";" for kind in (accept or "").split(","))


_SAME_SITE_FETCH = frozenset({"same-origin", "none"})  # none: typed in, or a bookmark


def cross_site(method: str, headers: list[tuple[bytes, bytes]]) -> str | None:
    """Why a browser's state-changing request did not come from this site's own pages (the
    reason, naming the header), or None. ``Origin`` must be this server's own (its host and
    port are the request's ``Host``); without one, or with ``null`` (what a browser sends from
    a page whose Referrer-Policy is no-referrer, as every WorkGym page's), ``Sec-Fetch-Site``
    must be same-origin or none. A request with neither is no browser's of the last years (all
    send ``Origin`` on a POST): allowed; ``null`` with no ``Sec-Fetch-Site`` is refused.
    SameSite cookies alone let another port of the same host (same site, another origin)
    post."""
    if method in READ_METHODS:
        return None
    sent = {k: v.decode("latin-1") for k, v in headers
            if k in (b"origin", b"sec-fetch-site", b"host")}
    origin = sent.get(b"origin")
    if origin is not None and origin != "null":
        if urlsplit(origin).netloc.lower() != sent.get(b"host", "").lower():
            return f"Origin '{origin[:100]}' is not this site's: the form is not one of its pages"
        return None
    site = sent.get(b"sec-fetch-site")
    if site is None:
        return "Origin 'null' and no Sec-Fetch-Site: the form is not one of this site's pages" \
            if origin == "null" else None
    if site.lower() not in _SAME_SITE_FETCH:
        return f"Sec-Fetch-Site '{site[:40]}': the form is not one of this site's pages"
    return None
