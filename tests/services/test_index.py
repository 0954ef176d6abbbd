"""`GET /` of the gym API: a page of where things are to a browser, JSON to API clients."""

from __future__ import annotations

from workgym.local import LocalServer

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_a_browser_gets_a_page_of_links(local: LocalServer) -> None:
    response = local.request("GET", "/", headers={"accept": BROWSER})

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    for link in ("/docs", "/openapi.json", "/healthz"):
        assert f"<a href='{link}'>" in response.text
        assert local.request("GET", link).status_code == 200, link


def test_an_api_client_gets_the_json_404_of_any_unknown_path(local: LocalServer) -> None:
    unknown = local.request("GET", "/no-such-path")
    for accept in (None, "application/json", "*/*"):
        response = local.request("GET", "/", headers={"accept": accept} if accept else {})
        assert (response.status_code, response.json()) == (404, unknown.json()), accept
