"""The CRM's seeded world (compiled from source/rules.yaml's ``world``): its pipelines are
HubSpot's, every record is associated as HubSpot would have it, the mess README.md lists is
there and shows by its marker, the factories make records like the world's, and what the
statement checker reads of it (claims.yaml) holds."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from replicas.catalog import claim_files
from replicas.crm.factories import FACTORIES
from replicas.crm.spec import SPEC
from replicas.runtime.clock import WORLD_START, iso
from replicas.runtime.setup import apply_ops, parse_ops
from replicas.runtime.snapshots import SnapshotCache, load
from workgym_core.speech.lexicon import of

OPEN = "dealstage NOT IN ('closedwon', 'closedlost')"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    where: Path = tmp_path_factory.mktemp("crm")
    return load(SnapshotCache(SPEC, where, size=1).pristine(3))


def _one(db: sqlite3.Connection, sql: str, *params: object) -> int:
    """The one value ``sql`` answers (rows are dicts)."""
    row = db.execute(sql, params).fetchone()
    return int(next(iter(row.values())))


def test_pipelines_and_records_are_hubspots(world: sqlite3.Connection) -> None:
    stages = [r["id"] for r in world.execute(
        "SELECT id FROM pipeline_stages WHERE pipeline_id = 'default' ORDER BY display_order")]
    assert stages == ["appointmentscheduled", "qualifiedtobuy", "presentationscheduled",
                      "decisionmakerboughtin", "contractsent", "closedwon", "closedlost"]
    assert _one(world, "SELECT count(*) FROM deals WHERE dealstage NOT IN "
                       "(SELECT id FROM pipeline_stages WHERE pipeline_id = deals.pipeline)") == 0
    # Every deal is associated with a contact both ways (types 3 and 4), and with its
    # contact's company as its primary company (5) when the contact has one.
    assert _one(world, "SELECT count(*) FROM deals d WHERE NOT EXISTS (SELECT 1 FROM "
                       "associations a WHERE a.from_type = 'deals' AND a.from_id = d.id AND "
                       "a.to_type = 'contacts' AND a.type_id = 3)") == 0
    assert _one(world, "SELECT count(*) FROM associations a WHERE a.type_id = 3 AND NOT "
                       "EXISTS (SELECT 1 FROM associations b WHERE b.type_id = 4 AND "
                       "b.from_id = a.to_id AND b.to_id = a.from_id)") == 0
    assert _one(world, "SELECT count(*) FROM associations WHERE type_id = 5") > 0


def test_the_mess_is_there_and_shows_by_its_marker(world: sqlite3.Connection) -> None:
    # duplicate_contact: a later contact whose email differs only in letter case
    duplicates = world.execute(
        "SELECT a.id AS old, b.id AS new, a.createdate <= b.createdate AS older FROM contacts a "
        "JOIN contacts b ON lower(a.email) = lower(b.email) AND a.id < b.id").fetchall()
    assert duplicates and all(d["older"] for d in duplicates)
    # departed_owner: archived owners still own records
    assert _one(world, "SELECT count(*) FROM deals WHERE hubspot_owner_id IN "
                       "(SELECT id FROM owners WHERE archived)") > 0
    assert _one(world, "SELECT archived FROM owners WHERE id = 1") == 0
    # overdue_open_deal: open deals whose close date has passed; no other open deal has one
    now = iso(WORLD_START)
    overdue = _one(world, f"SELECT count(*) FROM deals WHERE {OPEN} AND closedate < ?", now)
    assert 0 < overdue <= _one(world, "SELECT count(*) FROM deals")
    assert _one(world, f"SELECT count(*) FROM deals WHERE {OPEN} AND closedate IS NULL") == 0
    # stale_phone: a note on a contact gives a number other than the contact's phone
    stale = world.execute(
        "SELECT c.phone, n.hs_note_body FROM notes n JOIN associations a ON a.from_type = "
        "'notes' AND a.from_id = n.id AND a.to_type = 'contacts' JOIN contacts c ON c.id = "
        "a.to_id WHERE n.hs_note_body LIKE '%new phone number%'").fetchall()
    assert stale and all(s["phone"] and s["phone"] not in s["hs_note_body"] for s in stale)


def test_factories_make_records_like_the_worlds(world: sqlite3.Connection,
                                                tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "copy.db")
    db.row_factory = world.row_factory
    world.backup(db)
    now: datetime = WORLD_START
    bound = apply_ops(db, parse_ops([
        {"bind": "buyer", "factory": "contact", "company_id": 2, "lifecyclestage": "lead"},
        {"bind": "deal", "factory": "deal", "contact_id": "$buyer.id",
         "dealstage": "contractsent"},
        {"bind": "task", "factory": "task"},
    ]), now, seed=3, factories=FACTORIES)
    buyer, deal = bound["buyer"], bound["deal"]
    assert buyer["lifecyclestage"] == "lead" and buyer["email"] and buyer["archived"] == 0
    assert _one(db, "SELECT count(*) FROM contacts WHERE lower(email) = lower(?)",
                buyer["email"]) == 1
    assert deal["dealstage"] == "contractsent" and deal["pipeline"] == "default"
    links = {(r["to_type"], r["to_id"], r["type_id"]) for r in db.execute(
        "SELECT * FROM associations WHERE from_type = 'deals' AND from_id = ?", (deal["id"],))}
    assert links == {("contacts", buyer["id"], 3), ("companies", 2, 341), ("companies", 2, 5)}
    assert _one(db, "SELECT count(*) FROM associations WHERE from_type = 'tasks' AND "
                    "from_id = ? AND to_type = 'contacts'", bound["task"]["id"]) == 1


def test_what_can_be_said_of_its_records_reads_its_state(world: sqlite3.Connection,
                                                         tmp_path: Path) -> None:
    """claims.yaml: a contact's changed phone is a contact update (the other apps' claim),
    and a contact's email and phone are theirs alone to hear (the sensitive properties)."""
    lexicon = of(claim_files())
    initial = tmp_path / "initial.db"
    world.backup(sqlite3.connect(initial))
    db = sqlite3.connect(tmp_path / "now.db")
    world.backup(db)
    db.execute(f"ATTACH DATABASE '{initial}' AS initial")
    facts = lexicon.claims["contact_update"].facts["crm"]
    assert db.execute(facts).fetchall() == []
    db.execute("UPDATE contacts SET phone = '+1 415 555 0100' WHERE id = 4")
    email = db.execute("SELECT lower(email) FROM contacts WHERE id = 4").fetchone()[0]
    assert db.execute(facts).fetchall() == [(email, 4, "+1 415 555 0100", 1)]
    told = db.execute(lexicon.sensitive["crm"].sql).fetchall()
    assert (email, "phone", "+1 415 555 0100") in told
    assert {kind for _, kind, _ in told} == {"email", "phone"}
