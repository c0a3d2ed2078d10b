"""The demo saves hold what VASSAL 3.7 itself writes back for them (issue 10, "What VASSAL itself says").

VASSAL 3.7.26 re-encoding the earlier demo saves added `UniqueID`, the Mask options field, the Hide
transparency as a double and dropped `UNMASK`/`SETUP_STACK` (no encoder for them in this module).
"""

from __future__ import annotations

from module_patches.demo_story import load_story, save_path
from vassal_parser.commands import decode_stream, iter_commands
from vassal_parser.container import open_container
from vassal_parser.traits import BasicPiece, Invisible, Mask, decode_chain


def _pieces(name: str):
    tree = decode_stream(open_container(save_path(name)).command_text())
    return tree, [c for c in iter_commands(tree) if c.kind == "add_piece" and c.fields["type"] != "stack"]


def test_every_piece_carries_its_unique_id_and_traits_as_vassal_writes_them() -> None:
    masks = hides = 0
    for scene in load_story():
        tree, pieces = _pieces(scene)
        assert pieces
        texts = [c.text for c in iter_commands(tree)]
        assert not any(t.startswith(("UNMASK\t", "SETUP_STACK\t")) for t in texts)
        for command in pieces:
            traits = decode_chain(command.fields["type"], command.fields["state"])
            basic = traits[-1]
            assert isinstance(basic, BasicPiece)
            assert basic.fields["persistent"] == {"UniqueID": command.fields["id"]}
            for trait in traits:
                if isinstance(trait, Mask):
                    masks += 1
                    assert trait.state == "null;" or trait.state.endswith(";false|0")
                if isinstance(trait, Invisible):
                    hides += 1
                    assert trait.type.endswith(";0.30000001192092896;;false")
    assert masks and hides
