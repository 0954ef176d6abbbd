"""The notes app's business rules (plain functions over a session), by area."""

from .notes import create_note, delete_note, update_note

__all__ = ["create_note", "delete_note", "update_note"]
