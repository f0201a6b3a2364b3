"""Latent Dirichlet allocation fitted by batch variational Bayes, with the E-step vectorised.

The same model, priors, random starting points, updates and stopping rules as scikit-learn's
`LatentDirichletAllocation` with ``learning_method="batch"`` (tests/test_topic.py checks the topics
agree to 1e-6), but every document steps at once as array operations: scikit-learn loops over
documents in Python, which made a topic slider move in `explore` take most of a second.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exp_dirichlet_expectation", "fit_lda", "lda_e_step"]


def exp_dirichlet_expectation(parameters: np.ndarray) -> np.ndarray:
    """``exp(E[log x])`` for x drawn from the Dirichlet distribution of each row of `parameters`."""
    from scipy.special import digamma

    return np.exp(digamma(parameters) - digamma(parameters.sum(axis=1, keepdims=True)))


def lda_e_step(
    counts, exp_topic_word: np.ndarray, prior: float, start: np.ndarray,  # noqa: ANN001 - csr_matrix
    tol: float = 1e-3, max_iter: int = 100,
) -> np.ndarray:
    """LDA's variational E-step for every row (document) of `counts` at once.

    The same fixed-point updates and per-document stopping rule as scikit-learn's
    `_update_doc_distribution` (a document stops when the mean change of its topic weights falls
    below `tol`), but all documents step together as array operations instead of one Python loop per
    document, and the ones that have stopped leave the arrays. `start` is every document's initial
    topic weights. Returns the topic weights (gamma), documents x topics.
    """
    gamma = np.array(start, dtype=np.float64)
    lengths = np.diff(counts.indptr)
    gamma[lengths == 0] = prior  # where scikit-learn's update lands a document without words
    active = np.flatnonzero(lengths)
    lengths = lengths[active]
    data, word_topic = counts.data, exp_topic_word.T[counts.indices]  # rows without words hold no entries
    weights = gamma[active]
    exp_weights = exp_dirichlet_expectation(weights)
    threshold = tol * gamma.shape[1]  # on the sum of the changes: scikit-learn's mean change >= tol
    rows, starts = _entry_rows(lengths)
    for _ in range(max_iter if len(active) else 0):
        norm = np.einsum("ij,ij->i", exp_weights[rows], word_topic)
        norm += np.finfo(np.float64).eps
        updated = np.add.reduceat(word_topic * (data / norm)[:, None], starts, axis=0)
        updated *= exp_weights
        updated += prior
        moving = np.abs(updated - weights).sum(axis=1) >= threshold
        weights, exp_weights = updated, exp_dirichlet_expectation(updated)
        if not moving.all():
            gamma[active[~moving]] = weights[~moving]
            entries = np.repeat(moving, lengths)
            active, weights, exp_weights = active[moving], weights[moving], exp_weights[moving]
            lengths = lengths[moving]
            data, word_topic = data[entries], word_topic[entries]
            if not len(active):
                break
            rows, starts = _entry_rows(lengths)
    gamma[active] = weights
    return gamma


def _entry_rows(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows holding `lengths` entries each (none empty), laid end to end: the row of every
    entry, and where each row's entries start."""
    return np.repeat(np.arange(len(lengths)), lengths), np.cumsum(lengths) - lengths


def fit_lda(
    counts, n_topics: int, max_iter: int = 10, max_doc_update_iter: int = 100,  # noqa: ANN001
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Batch variational Bayes for LDA, as scikit-learn's `LatentDirichletAllocation` runs it with
    ``learning_method="batch"`` and the same `max_iter`, `max_doc_update_iter` and
    ``random_state=seed`` (same priors, same random starting points, same updates: the tests check
    the topics agree), with the E-step vectorised (`lda_e_step`): scikit-learn's loops over
    documents in Python, which made a slider move that refits the model take most of a second on a
    50 KB text (`chunklab.strategies.topic`).

    Returns the topic-word parameters (scikit-learn's ``components_``) and ``exp(E[log beta])``.
    """
    from scipy import sparse

    rng = np.random.RandomState(seed)
    prior = 1.0 / n_topics
    components = rng.gamma(100.0, 0.01, (n_topics, counts.shape[1]))
    exp_topic_word = exp_dirichlet_expectation(components)
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    for _ in range(max_iter):
        start = rng.gamma(100.0, 0.01, (counts.shape[0], n_topics))
        gamma = lda_e_step(counts, exp_topic_word, prior, start, max_iter=max_doc_update_iter)
        exp_weights = exp_dirichlet_expectation(gamma)
        norm = np.einsum("ij,ij->i", exp_weights[rows], exp_topic_word.T[counts.indices]) + np.finfo(np.float64).eps
        ratios = sparse.csr_matrix((counts.data / norm, counts.indices, counts.indptr), shape=counts.shape)
        components = prior + np.asarray((ratios.T @ exp_weights).T) * exp_topic_word
        exp_topic_word = exp_dirichlet_expectation(components)
    return components, exp_topic_word
