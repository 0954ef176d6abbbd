"""The telemetry store: OTLP/HTTP receiver, span store, episode trace, timeline and pages."""
