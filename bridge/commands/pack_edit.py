"""placeholder"""

from __future__ import annotations

import argparse


def register(actions: argparse._SubParsersAction) -> None:
    return None
