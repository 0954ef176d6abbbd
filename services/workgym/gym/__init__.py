"""The gym API: episodes, tasks and scoring entry."""
