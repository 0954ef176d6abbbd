"""What every helpdesk rule module shares: who the API acts as."""

from __future__ import annotations

# The agent calling the API: every comment, merge and macro the API
# writes is authored by agent 1, "AI Agent" (Support group).
ACTING_AGENT_ID = 1
