"""Publishing a leaderboard folder to a Hugging Face Hub dataset repo, with a dry run that lists the commit."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judges.errors import BackendUnavailable, ConfigError, InputError

PUBLISHED = ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.html")
RUN_FILES = ("report.html", "run.json", "summary.md", "results.jsonl")  # what a linked run folder publishes


def linked_run_folders(folder: Path) -> list[Path]:
    """The run folders the leaderboard page links to (`runs/<candidate>--<evaluation>/report.html`), that exist."""
    import re

    page = folder / "leaderboard.html"
    if not page.is_file():
        return []
    links = set(re.findall(r'href="(runs/[^"#?]+)/report\.html"', page.read_text(encoding="utf-8")))
    resolved = folder.resolve()
    found = [folder / link for link in sorted(links)]
    return [f for f in found if f.resolve().is_relative_to(resolved) and (f / "report.html").is_file()]


@dataclass(frozen=True)
class PublishPlan:
    repo_id: str
    files: list[tuple[Path, str]]  # (local file, path in the repo)
    message: str

    def describe(self) -> str:
        lines = [f"would commit to dataset repo {self.repo_id}: {self.message!r}"]
        lines += [f"  {path_in_repo}  <- {local} ({local.stat().st_size} bytes)" for local, path_in_repo in self.files]
        return "\n".join(lines)


def plan_publish(folder: str | Path, repo_id: str, message: str | None = None) -> PublishPlan:
    folder = Path(folder)
    if "/" not in repo_id:
        raise ConfigError(f"repo id {repo_id!r} must look like OWNER/NAME")
    if not (folder / "leaderboard.json").is_file():
        raise InputError("not a leaderboard folder: leaderboard.json is missing", path=str(folder))
    files = [(folder / name, name) for name in PUBLISHED if (folder / name).is_file()]
    files += [(png, png.name) for png in sorted(folder.glob("pareto_*.png"))]
    for run in linked_run_folders(folder):  # so the published page's report links are not dead
        relative = run.relative_to(folder).as_posix()
        files += [(run / name, f"{relative}/{name}") for name in RUN_FILES if (run / name).is_file()]
    return PublishPlan(repo_id, files, message or f"judgelab leaderboard ({len(files)} files)")


def publish(plan: PublishPlan, token: str | None = None) -> str:
    """Create one commit with every file (huggingface-hub); returns the commit URL. An unreachable Hub or a refused
    push is one BackendUnavailable line."""
    from huggingface_hub import CommitOperationAdd, HfApi
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    api = HfApi(token=token)
    try:
        api.create_repo(plan.repo_id, repo_type="dataset", exist_ok=True)
        operations = [CommitOperationAdd(path_in_repo=name, path_or_fileobj=str(local)) for local, name in plan.files]
        info = api.create_commit(plan.repo_id, operations=operations, commit_message=plan.message, repo_type="dataset")
    except HfHubHTTPError as err:
        status = err.response.status_code if err.response is not None else "?"
        raise BackendUnavailable(
            f"the Hugging Face Hub refused the push to {plan.repo_id} (HTTP {status}); nothing "
            "was pushed: log in with `hf auth login` or set HF_TOKEN"
        ) from None
    except Exception as err:
        if not (isinstance(err, (OfflineModeIsEnabled, ConnectionError, TimeoutError)) or _is_transport_error(err)):
            raise
        raise BackendUnavailable(
            f"cannot reach the Hugging Face Hub ({type(err).__name__}); nothing was pushed: check "
            "the network, or use --dry-run to list the commit"
        ) from None
    return str(info.commit_url)


def _is_transport_error(err: Exception) -> bool:
    """An HTTP client's connection or timeout error (huggingface-hub's client is an httpx flavour; matched by name)."""
    return any(kind.__name__ in ("TransportError", "NetworkError", "TimeoutException") for kind in type(err).__mro__)
