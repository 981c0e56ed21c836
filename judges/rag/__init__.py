"""The RAG metric suite (Ragas, TRACe, LlamaIndex, RAGChecker, GroUSE, TruLens, rubrics) on the shared judge runtime."""

# the run kind this package defines, registered as a package's `judgelab.kinds` entry point is (judges.plugins)
KINDS = {"metrics": "judges.rag.metrics_kind:METRICS_KIND"}
