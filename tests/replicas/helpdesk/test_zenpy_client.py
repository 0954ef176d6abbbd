"""zenpy, the Zendesk ecosystem's Python client, unchanged against an episode of the helpdesk
through a real `workgym serve` (proxy included): create a ticket, comment publicly and
privately through updates, search and page through results with its generators, apply a
macro and save the result, merge tickets, read a view and audits, users and errors.

What zenpy needs to reach a host that is not ``<subdomain>.zendesk.com`` is its own
configuration, set here: ``ZENPY_FORCE_SCHEME`` / ``ZENPY_FORCE_NETLOC`` (its documented
custom-domain switches) and the episode token as its OAuth token. Its object cache is off so
it sees what the server changed (a merge closing a ticket)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from zenpy import Zenpy
from zenpy.lib.api_objects import Comment, CustomField, Ticket, User
from zenpy.lib.exception import APIException, RecordNotFoundException

import workgym
from workgym.processes import serving

TASK = "helpdesk/stale-contact-update"
ORDER_NUMBER_FIELD = 360001


@pytest.fixture(scope="module")
def zenpy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Zenpy]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("zenpy"))}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=3, faults="none") as run:
        obs = run.reset()
        app = urlsplit(obs.apps["helpdesk"])
        saved = {k: os.environ.get(k) for k in ("ZENPY_FORCE_SCHEME", "ZENPY_FORCE_NETLOC")}
        os.environ["ZENPY_FORCE_SCHEME"] = app.scheme
        os.environ["ZENPY_FORCE_NETLOC"] = app.netloc + app.path.rstrip("/")
        try:
            yield Zenpy(subdomain="episode", oauth_token=obs.token, disable_cache=True)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _new_ticket(zenpy: Zenpy, subject: str, email: str = "ada.lovelace@example.com") -> Ticket:
    created = zenpy.tickets.create(Ticket(
        subject=subject, comment=Comment(body="My grinder arrived broken."),
        requester=User(name="Ada Lovelace", email=email), priority="high",
        tags=["Damaged", "returns"],
        custom_fields=[CustomField(id=ORDER_NUMBER_FIELD, value="A-99999")]))
    return created.ticket


def test_create_then_comment_publicly_and_privately(zenpy: Zenpy) -> None:
    ticket = _new_ticket(zenpy, "Broken grinder")
    assert (ticket.status, ticket.priority, ticket.tags) == ("new", "high",
                                                             ["damaged", "returns"])
    assert ticket.requester.email == "ada.lovelace@example.com"
    assert {f["id"]: f["value"] for f in ticket.custom_fields}[ORDER_NUMBER_FIELD] == "A-99999"
    ticket.comment = Comment(body="Sorry to hear that! Could you send a photo?", public=True)
    ticket.status = "pending"
    ticket.assignee_id = 1
    saved = zenpy.tickets.update(ticket)
    assert (saved.ticket.status, saved.ticket.assignee_id) == ("pending", 1)
    assert any(e["type"] == "Comment" for e in saved.audit.events)
    ticket = zenpy.tickets(id=ticket.id)
    ticket.comment = Comment(body="Customer seems upset; offer a replacement.", public=False)
    zenpy.tickets.update(ticket)
    comments = list(zenpy.tickets.comments(ticket=ticket.id))
    # The description is the first comment, by its author (the API's user, as in Zendesk).
    assert [(c.public, c.author_id) for c in comments] == [(True, 1), (True, 1), (False, 1)]


def test_search_pages_through_every_result(zenpy: Zenpy) -> None:
    found = zenpy.search(type="ticket", status_less_than="solved")
    statuses = {t.status for t in found}
    assert statuses <= {"new", "open", "pending", "hold"} and len(statuses) > 1
    everything = zenpy.search(type="ticket")
    ids = [t.id for t in everything]
    assert len(ids) > 100 and len(ids) == len(set(ids))  # more than one page, none twice
    assert zenpy.search.count(type="ticket") == len(ids)
    by_number = list(zenpy.search(f"custom_field_{ORDER_NUMBER_FIELD}:A-99999", type="ticket"))
    assert by_number and all(t.subject == "Broken grinder" for t in by_number)


def test_cursor_paging_walks_every_ticket_once(zenpy: Zenpy) -> None:
    ids = [t.id for t in zenpy.tickets()]
    assert len(ids) > 100 and len(ids) == len(set(ids)) and ids == sorted(ids)


def test_a_macro_is_applied_by_saving_its_result(zenpy: Zenpy) -> None:
    ticket = _new_ticket(zenpy, "Where is my order?")
    ticket.assignee_id = 1
    zenpy.tickets.update(ticket)
    effect = zenpy.tickets.show_macro_effect(ticket.id, 1)  # "Ask for the order number"
    assert effect.ticket.status == "pending" and "order number" in effect.ticket.comment.body
    assert zenpy.tickets(id=ticket.id).status == "open"  # a preview changes nothing
    zenpy.tickets.update(effect.ticket)
    after = zenpy.tickets(id=ticket.id)
    assert after.status == "pending"
    assert "Ada" in list(zenpy.tickets.comments(ticket=ticket.id))[-1].body


def test_merge_tickets_as_a_job(zenpy: Zenpy) -> None:
    target = _new_ticket(zenpy, "Refund please")
    source = _new_ticket(zenpy, "Refund please (again)")
    job = zenpy.tickets.merge(target, [source.id], target_comment="Merged the duplicate.",
                              source_comment="Closed: a duplicate.")
    status = zenpy.job_status(id=job.id)
    assert status.status == "completed" and status.results[0].id == source.id
    merged = zenpy.tickets(id=source.id)
    assert merged.status == "closed" and "closed_by_merge" in merged.tags
    with pytest.raises(APIException) as closed:
        merged.comment = Comment(body="Any news?")
        zenpy.tickets.update(merged)
    assert '"RecordInvalid"' in str(closed.value)


def test_views_and_audits(zenpy: Zenpy) -> None:
    views = {v.title: v for v in zenpy.views()}
    unsolved = views["All unsolved tickets"]
    tickets = list(zenpy.views.tickets(unsolved))
    assert tickets and {t.status for t in tickets} <= {"new", "open", "pending", "hold"}
    assert zenpy.views.count(unsolved).value == len(tickets)
    ticket = _new_ticket(zenpy, "Audit me")
    ticket.status, ticket.assignee_id = "open", 1
    zenpy.tickets.update(ticket)
    audits = list(zenpy.tickets.audits(ticket=ticket.id))
    assert audits[0].via.channel == "api"
    changes = [(e["field_name"], e.get("previous_value"), e["value"])
               for a in audits for e in a.events if e["type"] == "Change"]
    assert ("status", "new", "open") in changes
    notified = [e for a in audits for e in a.events if e["type"] == "Notification"]
    assert notified and notified[0]["via"]["channel"] == "rule"  # a trigger emailed them


def test_users_and_errors(zenpy: Zenpy) -> None:
    me = zenpy.users.me()
    assert (me.id, me.role) == (1, "agent")
    found = list(zenpy.users.search(query="ada.lovelace@example.com"))
    assert [u.name for u in found] == ["Ada Lovelace"]
    with pytest.raises(RecordNotFoundException):
        zenpy.tickets(id=99_999_999)


def test_the_readme_examples(zenpy: Zenpy) -> None:
    """zenpy's README, as written: a ticket from a description alone, a search, users."""
    created = zenpy.tickets.create(Ticket(description="Some description",
                                          subject="This is a test ticket")).ticket
    assert [c.body for c in zenpy.tickets.comments(ticket=created.id)] == ["Some description"]
    found = list(zenpy.search("test ticket", type="ticket"))
    assert created.id in [t.id for t in found]
    assert next(iter(zenpy.users())).id and zenpy.users.me().id == 1
