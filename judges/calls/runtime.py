"""The shared call runtime: one concurrency limit, retries with backoff, per-call timeout, cache, accounting."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from judges.calls.allowance import replaying_only, spend_call
from judges.calls.backend import Backend, CallError, Completion, CompletionRequest
from judges.calls.cache import CacheMode
from judges.calls.content_views import estimate_tokens
from judges.calls.priority_slots import PrioritySlots
from judges.calls.reply_watch import check_reply
from judges.errors import BudgetExhausted, EndpointUnusable, ReplayMiss
from judges.records.usage import RunUsage
from judges.types import FailureKind

# the runtime that calls made in this context go to instead (`CallRuntime.routed_to`); none outside a collecting pass
ROUTE: ContextVar[CallRuntime | None] = ContextVar("judgelab_call_route", default=None)


@dataclass
class CallCounter(RunUsage):
    """The live count of a run's calls as they happen (run.json's `usage`, the progress line's figures): the shared
    counts, `failures` by kind (call errors after their retries, and replies that could not be used), and retries."""

    def note_failure(self, kind: FailureKind) -> None:
        """A failed call: one that got no reply (`note_unanswered`), or a reply that could not be used."""
        self.failed_calls += 1
        self.failures[kind.value] = self.failures.get(kind.value, 0) + 1

    def note_unanswered(self, kind: FailureKind) -> None:
        """A call made that got no reply (after its retries): one call, one failure."""
        self.calls += 1
        self.note_failure(kind)

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.replies += 1
        self.cached_calls += int(completion.cached)
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.cost += 0.0 if completion.cached else completion.cost


@dataclass
class RuntimeSettings:
    concurrency: int = 8  # calls in flight at once, over all models
    max_attempts: int = 4  # first try plus retries on 429, 5xx, connection errors and timeouts
    timeout_s: float = 120.0  # per call
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 30.0
    # the longest Retry-After waited (LiteLLM's bound); a longer one is not retried (as the OpenAI client does over its
    # own 120 s): the endpoint's rate or quota limit is spent for a while, and the run stops as unusable (exit 3)
    retry_after_max_s: float = 60.0
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None  # counted on the prompt estimate plus max_tokens
    max_cost: float | None = None  # USD; no new call starts once spent
    endpoint: str = "the provider's API"  # named in the one line shown when the endpoint is unusable
    same_failures_to_stop: int = 3  # the first calls all failing the same way, before any reply: stop the run
    # a timeout before anything answered means a hung endpoint; not for a local server already seen ready, whose
    # first (cold) calls may just be slow on a loaded machine
    early_timeout_stops: bool = True


class Replies(Protocol):
    """Where the runtime looks a call up first and keeps its reply: the reply cache, or a run's view of it through an
    executor's sink (whose `get` may raise the CallError an executor met for that call)."""

    @property
    def mode(self) -> CacheMode: ...

    def get(self, request: CompletionRequest) -> Completion | None: ...

    def put(self, request: CompletionRequest, completion: Completion) -> None: ...

    def forget(self, request: CompletionRequest) -> None: ...


@dataclass
class CallRuntime:
    """Every judge call goes through `call`: cache lookup, a concurrency slot, retries, then the cache write."""

    backend: Backend
    cache: Replies | None = None
    settings: RuntimeSettings = field(default_factory=RuntimeSettings)
    usage: CallCounter = field(default_factory=CallCounter)
    metered: bool = False  # its calls reach a model (the judge's own): they count against a call allowance

    def __post_init__(self) -> None:
        self._slots = PrioritySlots(self.settings.concurrency)
        self._limiters: dict[str, tuple[Any, Any]] = {}
        self._answered = False  # a reply has come from the endpoint in this run
        self._call_numbers = itertools.count(1)
        self._early_failures: list[CallError] = []

    def items_in_flight(self, per_slot: int) -> int:
        """How many tests or samples to run at once: `per_slot` per call slot, so the slots stay full while some
        wait on a later stage; but one at a time on a serial (local) model, so each one's calls reach the server
        back to back and it reuses the prompt prefix they share instead of reading every prompt anew."""
        slots = max(1, self.settings.concurrency)
        return 1 if slots == 1 else per_slot * slots

    def _rate_limiters(self, model: str) -> tuple[Any, Any]:
        """Per-model request and token limiters (aiolimiter's leaky bucket), made on first use."""
        if model not in self._limiters:
            rpm, tpm = self.settings.requests_per_minute, self.settings.tokens_per_minute
            self._limiters[model] = (None, None)
            if rpm or tpm:  # aiolimiter only when a limit is set
                from aiolimiter import AsyncLimiter

                self._limiters[model] = (AsyncLimiter(rpm, 60) if rpm else None, AsyncLimiter(tpm, 60) if tpm else None)
        return self._limiters[model]

    async def call(self, request: CompletionRequest, priority: int = 0) -> Completion:
        """A reply, or CallError once retries are exhausted; BudgetExhausted once --max-cost is spent.

        Waiting calls get a slot lowest `priority` first (callers pass the unit's order), so work already
        started finishes before new work begins.
        """
        routed = ROUTE.get()
        if routed is not None and routed is not self:
            return await routed.call(request, priority)
        if self.cache is not None:
            try:
                hit = self.cache.get(request)
            except CallError as err:  # the cache holds the call's failure (an executor made it; the run's sink)
                self.usage.note_unanswered(err.kind)
                raise
            if hit is not None:
                self.usage.add(hit)
                return hit
        if replaying_only() or (self.cache is not None and self.cache.mode is CacheMode.REPLAY):
            raise ReplayMiss(f"replay mode: no recorded reply for a {request.model} call ({request.metric or 'call'})")
        async with self._slots.hold(priority):  # checked once a slot is held: calls waiting cannot overshoot
            if self.settings.max_cost is not None and self.usage.cost >= self.settings.max_cost:
                raise BudgetExhausted(
                    f"--max-cost {self.settings.max_cost:g} USD reached (spent {self.usage.cost:.4f})"
                )
            if self.metered:  # tune's --budget-calls: BudgetExhausted rather than the call that would pass it
                spend_call()
            try:
                completion = await self._call_with_retries(request)
            except CallError as err:
                self._check_endpoint(request, err)
                raise
            self._answered = True
            self.usage.add(completion)
        if self.cache is not None:
            self.cache.put(request, completion)
        check_reply(completion)  # a watch of this context may stop the run here (the reply is cached already)
        return completion

    @contextlib.contextmanager
    def routed_to(self, other: CallRuntime) -> Iterator[None]:
        """Calls made through this runtime from this context, and the tasks it starts, go to `other` instead (an
        executor's collecting pass: the items are walked against a backend that only notes their calls, with its own
        accounting); calls of the run's other tasks are untouched."""
        token = ROUTE.set(other)
        try:
            yield
        finally:
            ROUTE.reset(token)

    async def aclose(self) -> None:
        """Release the backend's connections at the end of a run, inside its event loop (a later call reopens)."""
        closer = getattr(self.backend, "aclose", None)
        if closer is not None:
            await closer()

    def next_call_number(self) -> int:
        """A number for a call record, unique in this run (items that share a step list the same call)."""
        routed = ROUTE.get()
        return next((routed if routed is not None else self)._call_numbers)

    def discard(self, request: CompletionRequest) -> None:
        """Forget a reply that proved unusable (it could not be parsed), so a re-run asks again."""
        routed = ROUTE.get()
        if routed is not None and routed is not self:
            routed.discard(request)
        elif self.cache is not None:
            self.cache.forget(request)

    def _check_endpoint(self, request: CompletionRequest, err: CallError) -> None:
        """Raise EndpointUnusable when the failure says the endpoint cannot serve this run: a refused, unknown or
        unauthorised endpoint, a Retry-After over `retry_after_max_s`, a timeout before anything answered, or its first
        calls all failing the same way."""
        problem = err.endpoint_problem
        if over_retry_after(err, self.settings):
            wait, cap = err.retry_after or 0.0, self.settings.retry_after_max_s
            raise EndpointUnusable(
                f"{self._unusable(request, err)}; it asks to wait {wait:g} s before the next call (Retry-After), over "
                f"the {cap:g} s judgelab waits: its rate or quota limit is spent; rerun later to resume from the cache"
            ) from None
        if problem in ("auth", "not_found") or (not self._answered and problem == "connection"):
            raise EndpointUnusable(self._unusable(request, err)) from None
        if self._answered:
            return
        if err.kind is FailureKind.TIMEOUT and self.settings.early_timeout_stops:
            raise EndpointUnusable(self._unusable(request, err)) from None
        if len(self._early_failures) < self.settings.same_failures_to_stop:  # only the first ones are compared
            self._early_failures.append(err)
        firsts = self._early_failures
        if len(firsts) == self.settings.same_failures_to_stop and len({(e.kind, str(e)[:60]) for e in firsts}) == 1:
            raise EndpointUnusable(self._unusable(request, err)) from None

    def _unusable(self, request: CompletionRequest, err: CallError) -> str:
        return f"judge {request.model} at {self.settings.endpoint} is unusable: {err}"

    async def _call_with_retries(self, request: CompletionRequest) -> Completion:
        try:
            return await self._one_call(request)  # most calls answer at once: tenacity is set up only after a failure
        except CallError as err:
            first: CallError | None = err

        def count_retry(_state: Any) -> None:
            self.usage.retries += 1

        def worth_retrying(err: BaseException) -> bool:
            if not (isinstance(err, CallError) and err.retryable):
                return False
            # before anything has answered, a timeout or a refused connection is not retried: it stops the run
            early_timeout = err.kind is FailureKind.TIMEOUT and self.settings.early_timeout_stops
            return self._answered or not (early_timeout or err.endpoint_problem == "connection")

        try:
            async for attempt in retrying(self.settings, on_retry=count_retry, retry_if=worth_retrying):
                with attempt:
                    if first is not None:  # the first attempt's error, decided on as if it had been raised here
                        failed, first = first, None
                        raise failed
                    return await self._one_call(request)
        except CallError as err:
            self.usage.note_unanswered(err.kind)
            raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def _one_call(self, request: CompletionRequest) -> Completion:
        requests_limiter, tokens_limiter = self._rate_limiters(request.model)
        if requests_limiter is not None:
            await requests_limiter.acquire()
        if tokens_limiter is not None:
            await tokens_limiter.acquire(min(estimate_tokens(request), tokens_limiter.max_rate))
        try:  # in this task (wait_for would make one per call: more CPU, and a loop turn each way)
            async with asyncio.timeout(self.settings.timeout_s):
                return await self.backend.complete(request)
        except TimeoutError:
            raise CallError(
                FailureKind.TIMEOUT, f"no reply within {self.settings.timeout_s:g} s", retryable=True
            ) from None


def retrying(
    settings: RuntimeSettings,
    on_retry: Callable[[Any], None] | None = None,
    retry_if: Callable[[BaseException], bool] | None = None,
) -> Any:
    """tenacity's retry loop for a provider call: retryable CallErrors only (429, 5xx, connection errors,
    timeouts; narrowed by `retry_if`), exponential backoff with jitter, a Retry-After hint honoured up to
    `retry_after_max_s` (an error asking a longer wait is not retried); the last error is re-raised."""
    from tenacity import (
        AsyncRetrying,
        RetryCallState,
        retry_if_exception,
        stop_after_attempt,
        wait_exponential_jitter,
    )

    jitter = wait_exponential_jitter(multiplier=settings.backoff_initial_s, max=settings.backoff_max_s)

    def wait(state: RetryCallState) -> float:
        err = state.outcome.exception() if state.outcome else None
        hinted = getattr(err, "retry_after", None)
        return min(float(hinted), settings.retry_after_max_s) if hinted is not None else jitter(state)

    narrowed = retry_if or (lambda e: isinstance(e, CallError) and e.retryable)

    def worth(err: BaseException) -> bool:
        return narrowed(err) and not (isinstance(err, CallError) and over_retry_after(err, settings))

    return AsyncRetrying(
        stop=stop_after_attempt(settings.max_attempts),
        wait=wait,
        reraise=True,
        before_sleep=on_retry,
        retry=retry_if_exception(worth),
    )


def over_retry_after(err: CallError, settings: RuntimeSettings) -> bool:
    """Whether the error asks for a longer wait (Retry-After) than the runtime makes."""
    return err.retry_after is not None and err.retry_after > settings.retry_after_max_s
