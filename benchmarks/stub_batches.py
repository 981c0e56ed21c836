"""The stub server's OpenAI files and batches endpoints (a test double of the provider's batch API).

POST /v1/files (multipart: purpose, file), GET /v1/files/{id}/content, POST /v1/batches, GET /v1/batches/{id},
GET /v1/batches (list). A batch goes validating -> in_progress -> finalizing -> completed over `delay_s`
(request_counts moving as it goes); its output and error files are made on completion, each line answered as the
stub answers the same chat request online; a `fail_rate` share of lines (chosen by custom_id) fails with a 400
in the error file. The stats count `batches_created`, `batch_lines` and `files_uploaded`.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web

PHASES = (("validating", 0.1), ("in_progress", 0.8), ("finalizing", 0.9))  # share of the delay each ends at


class BatchStore:
    def __init__(self, answer: Callable[[dict[str, Any]], dict[str, Any]], stats: Counter[str]) -> None:
        self.answer, self.stats = answer, stats
        self.delay_s, self.fail_rate = 1.0, 0.0
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}

    def routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v1/files", self.upload),
            web.get("/v1/files/{id}/content", self.content),
            web.post("/v1/batches", self.create),
            web.get("/v1/batches", self.listing),
            web.get("/v1/batches/{id}", self.retrieve),
        ]

    async def upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or upload is None or not hasattr(upload, "file"):
            return web.json_response({"error": {"message": "need purpose=batch and a file"}}, status=400)
        file_id = f"file-{uuid.uuid4().hex[:12]}"
        self.files[file_id] = upload.file.read()
        self.stats["files_uploaded"] += 1
        return web.json_response(
            {
                "id": file_id,
                "object": "file",
                "bytes": len(self.files[file_id]),
                "created_at": int(time.time()),
                "filename": upload.filename,
                "purpose": "batch",
                "status": "processed",
            }
        )

    async def content(self, request: web.Request) -> web.Response:
        data = self.files.get(request.match_info["id"])
        if data is None:
            return web.json_response({"error": {"message": "no such file"}}, status=404)
        return web.Response(body=data, content_type="application/jsonl")

    async def create(self, request: web.Request) -> web.Response:
        body = await request.json()
        data = self.files.get(str(body.get("input_file_id")))
        if data is None:
            return web.json_response({"error": {"message": "no such input file"}}, status=400)
        lines = [json.loads(line) for line in data.splitlines() if line.strip()]
        batch_id = f"batch_{uuid.uuid4().hex[:12]}"
        self.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body.get("endpoint"),
            "input_file_id": body["input_file_id"],
            "completion_window": body.get("completion_window", "24h"),
            "created_at": int(time.time()),
            "_started": time.monotonic(),
            "_lines": lines,
            "output_file_id": None,
            "error_file_id": None,
        }
        self.stats["batches_created"] += 1
        self.stats["batch_lines"] += len(lines)
        return web.json_response(self._view(self.batches[batch_id]))

    async def retrieve(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            return web.json_response({"error": {"message": "no such batch"}}, status=404)
        return web.json_response(self._view(batch))

    async def listing(self, _request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [self._view(b) for b in self.batches.values()]})

    def _fails(self, custom_id: str) -> bool:
        return int(hashlib.sha256(custom_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < self.fail_rate

    def _view(self, batch: dict[str, Any]) -> dict[str, Any]:
        share = (time.monotonic() - batch["_started"]) / self.delay_s if self.delay_s > 0 else 1.0
        status = next((name for name, end in PHASES if share < end), "completed")
        lines = batch["_lines"]
        failing = sum(self._fails(str(line.get("custom_id"))) for line in lines)
        progress = 0.0 if status == "validating" else min(1.0, (share - 0.1) / 0.7)
        if status == "completed" and batch["output_file_id"] is None:
            self._finish(batch)
        view = {k: v for k, v in batch.items() if not k.startswith("_")}
        done = int(progress * len(lines))
        view.update(
            status=status,
            request_counts={
                "total": len(lines),
                "completed": done - int(progress * failing),
                "failed": int(progress * failing),
            },
        )
        return view

    def _finish(self, batch: dict[str, Any]) -> None:
        out, errors = [], []
        for line in batch["_lines"]:
            custom_id = line.get("custom_id")
            if self._fails(str(custom_id)):
                error = {"message": "injected batch line failure", "type": "invalid_request_error"}
                response = {"status_code": 400, "request_id": f"req-{uuid.uuid4().hex[:8]}", "body": {"error": error}}
                errors.append(
                    {"id": f"line-{uuid.uuid4().hex[:8]}", "custom_id": custom_id, "response": response, "error": None}
                )
                continue
            reply = self.answer(line.get("body") or {})
            response = {"status_code": 200, "request_id": f"req-{uuid.uuid4().hex[:8]}", "body": reply}
            out.append(
                {"id": f"line-{uuid.uuid4().hex[:8]}", "custom_id": custom_id, "response": response, "error": None}
            )
        out.reverse()  # the output's order is not the input's: a client matches by custom_id
        for key, lines in (("output_file_id", out), ("error_file_id", errors)):
            if lines:
                file_id = f"file-{uuid.uuid4().hex[:12]}"
                self.files[file_id] = "".join(json.dumps(line) + "\n" for line in lines).encode()
                batch[key] = file_id
        batch["completed_at"] = int(time.time())
