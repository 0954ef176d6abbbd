"""Concurrent calls sent together: the first at once, the rest in one batch after it, in the
order they were made; each caller gets its own answer, or the round trip's error."""

from __future__ import annotations

import asyncio

import pytest

from workgym_core.batches import Batches


class Trips:
    """A round trip that answers each item doubled, after the test lets it (``go``)."""

    def __init__(self) -> None:
        self.sent: list[list[int]] = []
        self.go = asyncio.Event()
        self.error: Exception | None = None

    async def __call__(self, items: list[int]) -> list[int]:
        self.sent.append(items)
        await self.go.wait()
        if self.error is not None:
            raise self.error
        return [2 * item for item in items]


def test_calls_made_while_one_is_in_flight_go_together_in_order() -> None:
    async def run() -> None:
        trips = Trips()
        batches: Batches[int, int] = Batches(trips)
        calls = [asyncio.create_task(batches(i)) for i in range(5)]
        await asyncio.sleep(0)  # all five made: the first in flight, four waiting
        assert trips.sent == [[0]]
        trips.go.set()
        assert await asyncio.gather(*calls) == [0, 2, 4, 6, 8]
        assert trips.sent == [[0], [1, 2, 3, 4]]
        assert await batches(9) == 18  # idle again: a lone call goes at once
        assert trips.sent[-1] == [9]

    asyncio.run(run())


def test_each_caller_of_a_failed_round_trip_gets_its_error() -> None:
    async def run() -> None:
        trips = Trips()
        trips.error = ConnectionError("redis went away")
        batches: Batches[int, int] = Batches(trips)
        calls = [asyncio.create_task(batches(i)) for i in range(3)]
        await asyncio.sleep(0)
        trips.go.set()
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(o, ConnectionError) for o in outcomes)
        trips.error = None
        assert await batches(1) == 2  # and the next calls go

    asyncio.run(run())


def test_a_caller_that_left_before_its_batch_went_is_never_sent() -> None:
    async def run() -> None:
        trips = Trips()
        batches: Batches[int, int] = Batches(trips)
        calls = [asyncio.create_task(batches(i)) for i in range(3)]
        await asyncio.sleep(0)
        calls[1].cancel()
        trips.go.set()
        assert await calls[0] == 0 and await calls[2] == 4
        with pytest.raises(asyncio.CancelledError):
            await calls[1]
        assert trips.sent == [[0], [2]]

    asyncio.run(run())


def test_a_batch_left_in_flight_by_a_stopped_loop_holds_up_no_other_loop() -> None:
    trips = Trips()
    batches: Batches[int, int] = Batches(trips)
    stopped = asyncio.new_event_loop()
    left = stopped.create_task(batches(1))
    stopped.run_until_complete(asyncio.sleep(0))  # in flight, never answered: its loop stops
    stopped.close()

    async def run() -> int:
        trips.go = asyncio.Event()  # the stopped loop's call is never answered
        trips.go.set()
        return await batches(2)

    assert asyncio.run(run()) == 4 and not left.done()
