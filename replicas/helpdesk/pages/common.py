"""What the workspace's pages share: the renderer (``templates/``) and its route class, and
the agent the pages act as (the episode's own agent, as the API's token is)."""

from __future__ import annotations

from pathlib import Path

from replicas.runtime.pages import Pages

from ..rules.common import ACTING_AGENT_ID

PAGES = Pages(Path(__file__).with_name("templates"))
PageRoute = PAGES.route_class("This link or form is not one of the workspace's.")
CALLER = ACTING_AGENT_ID

__all__ = ["CALLER", "PAGES", "PageRoute"]
