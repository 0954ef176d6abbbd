"""The helpdesk's :class:`ReplicaSpec`: what the runtime serves, seeds and sets up."""

from __future__ import annotations

from replicas.runtime.episode import Episode
from replicas.runtime.spec import ReplicaSpec

from . import customer
from .errors import STYLE
from .factories import ACTIVITY, FACTORIES
from .middleware import JsonSuffix
from .routes import TAGS, router
from .rules import clock

_CLOCK = "helpdesk.automations_at"


def after_write(episode: Episode) -> None:
    """The world answering a write: the scripted customer replies, then the automations
    run for every hour the episode's clock has passed since they last ran."""
    customer.after_write(episode)
    last = episode.memory.get(_CLOCK, episode.clock_start)
    now = episode.now()
    clock.run_due(episode.db, last, now)
    episode.memory[_CLOCK] = now


SPEC = ReplicaSpec(
    name="helpdesk",
    title="Helpdesk",
    description=(
        "A Zendesk Support replica (API v2): tickets and their conversations (a ticket names "
        "the checkout order it is about in its custom field Order number), users (customers "
        "and agents), organizations, groups, views, search, macros, triggers, automations, "
        "SLA policies, and a help center that states the policies. The shop's orders, "
        "payments, refunds and customer accounts are the checkout's. You act as user 1, "
        "'AI Agent'. Errors are Zendesk's: {\"error\": \"RecordInvalid\", \"description\", "
        "\"details\": {field: [{description, error}]}}."
    ),
    # 2: no verification codes stored in the world; 3: people, companies and order numbers
    # from the seed's identity (shared by every app); 4: the refund article states the
    # managers' approval limit; 5: duplicates are refundable at any time (their article), the
    # thresholds to the cent, counting earlier refunds; 6: tickets name their order by number;
    # 7: orders, payments and accounts moved to the checkout (tickets about the identity's
    # orders); 8: tickets and their conversations in the customer's language, threads that
    # fit their topic and status, timestamps that keep to the SLA and the status history;
    # 9: Zendesk's resources: one users table, identities, memberships, custom fields, audits,
    # views, triggers, automations, SLA policies and metric events, schedules, job statuses;
    # 10: groups kept when deleted (deleted), uploads and attachments; 11: a macro keeps its
    # position; 12: the SLA clock's partial indexes (public comments, status-changing audits)
    data_version="12",
    router=router,
    probe={"update": "organizations", "id": 1,
           "values": {"notes": "Account review scheduled (probe: no task allows this)."}},
    factories=FACTORIES,
    activity=ACTIVITY,
    after_write=after_write,
    openapi_tags=TAGS,
    errors=STYLE,
    middleware=(JsonSuffix,),
)
