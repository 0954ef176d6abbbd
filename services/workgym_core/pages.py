"""What every HTML page WorkGym serves (the telemetry store's, the replicas' browser pages)
answers with: it loads nothing from anywhere, runs no script, posts forms only to its own
site, is never framed, cached, sniffed or named in a Referer (page URLs may carry secrets: a
signed link, a client secret); and what a browser's state-changing request must show to be
one of this site's own pages' (:func:`cross_site`)."""

from __future__ import annotations

from urllib.parse import urlsplit

PAGE_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
}


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_SAME_SITE_FETCH = frozenset({"same-origin", "none"})  # none: typed in, or a bookmark


def cross_site(method: str, headers: list[tuple[bytes, bytes]]) -> str | None:
    """Why a browser's state-changing request did not come from this site's own pages (the
    reason, naming the header), or None. ``Origin`` must be this server's own (its host and
    port are the request's ``Host``); without one, ``Sec-Fetch-Site`` must be same-origin or
    none. A request with neither is no browser's of the last years (all send ``Origin`` on a
    POST): allowed. SameSite cookies alone let another port of the same host (same site,
    another origin) post."""
    if method in SAFE_METHODS:
        return None
    sent = {k: v.decode("latin-1") for k, v in headers
            if k in (b"origin", b"sec-fetch-site", b"host")}
    if (origin := sent.get(b"origin")) is not None:
        host = urlsplit(origin).netloc.lower() if origin != "null" else ""
        if not host or host != sent.get(b"host", "").lower():
            return f"Origin '{origin[:100]}' is not this site's: the form is not one of its pages"
        return None
    site = sent.get(b"sec-fetch-site")
    if site is not None and site.lower() not in _SAME_SITE_FETCH:
        return f"Sec-Fetch-Site '{site[:40]}': the form is not one of this site's pages"
    return None
