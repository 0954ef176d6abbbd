"""What every HTML page WorkGym serves (the telemetry store's, the replicas' browser pages)
answers with: it loads nothing from anywhere, runs no script, posts forms only to its own
site, is never framed, cached, sniffed or named in a Referer (page URLs may carry secrets: a
signed link, a client secret)."""

from __future__ import annotations

PAGE_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
}
