"""How the checkout's pages answer (replicas/runtime/pages.py): its templates
(``templates/``), amounts as the shop shows them, and refusals shown as pages."""

from __future__ import annotations

from pathlib import Path

from replicas.runtime.pages import Pages, href, redirect, see_other, with_query
from workgym_core import money

__all__ = ["PageRoute", "href", "page", "redirect", "see_other", "with_query"]


def amount(value: int, currency: str) -> str:
    """An amount as the shop shows it: ``$129.00``, ``¥12,800``."""
    return money.format_symbol(value, currency)


PAGES = Pages(Path(__file__).with_name("templates"), amount=amount)
page = PAGES.page
# A checkout error's message and status; a link or form the shop did not make is a 400. A
# page runs its writes through ``routes.attempt``, which undoes a refused one.
PageRoute = PAGES.route_class("This link or form is not one of the shop's.")
