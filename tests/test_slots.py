"""PrioritySlots: at most n holders; a freed slot goes to the lowest priority number, then first come."""

import asyncio

from judges.calls.priority_slots import PrioritySlots


def test_freed_slots_go_to_the_lowest_priority_first():
    async def scenario():
        slots, order, peak, holding = PrioritySlots(2), [], [0], [0]

        async def worker(name, priority):
            async with slots.hold(priority):
                holding[0] += 1
                peak[0] = max(peak[0], holding[0])
                order.append(name)
                await asyncio.sleep(0.01)
                holding[0] -= 1

        tasks = [asyncio.create_task(worker(n, p)) for n, p in [("a", 5), ("b", 5), ("c", 9), ("d", 1), ("e", 1)]]
        await asyncio.gather(*tasks)
        return order, peak[0]

    order, peak = asyncio.run(scenario())
    assert peak == 2
    assert order == ["a", "b", "d", "e", "c"]


def test_a_cancelled_waiter_does_not_leak_its_slot():
    async def scenario():
        slots = PrioritySlots(1)
        async with slots.hold():
            waiter = asyncio.create_task(slots._acquire(0))
            await asyncio.sleep(0)
            waiter.cancel()
        async with slots.hold():  # would hang if the slot had leaked
            return True

    assert asyncio.run(asyncio.wait_for(scenario(), 2))


def test_a_block_that_raises_gives_its_slot_back():
    async def scenario():
        slots = PrioritySlots(1)
        try:
            async with slots.hold():
                raise ValueError("the call failed")
        except ValueError:
            pass
        async with slots.hold():  # would hang if the slot had leaked
            return slots._free

    assert asyncio.run(asyncio.wait_for(scenario(), 2)) == 0
