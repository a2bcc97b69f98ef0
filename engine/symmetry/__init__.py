"""Groups acting on labels and contexts: actions, constructors, detection, predictions.

Examples
--------
>>> from logitgeom.symmetry import detect_symmetry, orbit_targets, symmetric
>>> T = orbit_targets(symmetric(3), ["1/2", "1/3", "1/6"])
>>> detect_symmetry(T.Y).order
6
"""

from logitgeom.symmetry.constructors import (
    OrbitTargets,
    affine_line,
    as_group,
    cyclic,
    direct_product,
    direct_sum,
    frobenius,
    orbit_targets,
    parse_group,
    symmetric,
    wreath,
)
from logitgeom.symmetry.detect import DetectedSymmetry, detect_label_symmetry, detect_symmetry
from logitgeom.symmetry.group import GroupAction, column_action, orbit_bases
from logitgeom.symmetry.predict import (
    GramCheck,
    GramStructure,
    direct_product_form,
    direct_sum_form,
    predicted_gram_structure,
    wreath_form,
)

__all__ = [
    "DetectedSymmetry",
    "GramCheck",
    "GramStructure",
    "GroupAction",
    "OrbitTargets",
    "affine_line",
    "as_group",
    "column_action",
    "cyclic",
    "detect_label_symmetry",
    "detect_symmetry",
    "direct_product",
    "direct_product_form",
    "direct_sum",
    "direct_sum_form",
    "frobenius",
    "orbit_bases",
    "orbit_targets",
    "parse_group",
    "predicted_gram_structure",
    "symmetric",
    "wreath",
    "wreath_form",
]
