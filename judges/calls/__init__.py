"""Reaching judge models: backends, the call runtime (limits, retries, timeouts), the reply cache, model specs."""
