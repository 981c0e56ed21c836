"""The RAG metric suite (Ragas, TRACe, LlamaIndex, RAGChecker, GroUSE, TruLens, rubrics) on the shared judge runtime."""
