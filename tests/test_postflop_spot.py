"""Postflop spot configuration: files, parameters, validation (pokerlab.games.postflop.spot)."""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerlab.cards import parse_cards
from pokerlab.cards.ranges import combo_count
from pokerlab.errors import ParseError, PokerlabError
from pokerlab.games.postflop import (
    BetSize,
    SpotConfig,
    StreetSizes,
    TreeOptions,
    load_spot,
    resolve_bet,
    spot_from_params,
)
from pokerlab.games.postflop.spot import DEFAULT_SIZES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "src" / "pokerlab" / "data" / "spots"  # the built-in spots
EXAMPLE_SPOTS = sorted(EXAMPLES.glob("*.toml")) + sorted(EXAMPLES.glob("*.json"))

OOP = "66+,A8s+,K9s+,Q9s+,J9s+,T8s+,97s+,86s+,75s+,64s+,A9o+,KTo+,QTo+,JTo"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"


def _pot(*fractions: float) -> tuple[BetSize, ...]:
    return tuple(BetSize("pot", f) for f in fractions)


A = BetSize("allin")


def _turn_dict() -> dict[str, Any]:
    return {
        "board": "Td9d6hQc",
        "pot": 200,
        "stack": 900,
        "oop_range": OOP,
        "ip_range": IP,
        "turn": {"bet": "50%, a", "raise": "a"},
        "river": {"bet": "33%, 75%, a", "raise": "a"},
        "tree": {
            "add_allin_threshold": 1.5,
            "force_allin_threshold": 0.15,
            "merging_threshold": 0.1,
            "raise_limit": 3,
        },
    }


# --- the example spots (B6) ---


def test_every_example_spot_is_found() -> None:
    assert {p.name for p in EXAMPLE_SPOTS} >= {"river.toml", "turn.toml", "flop.toml"}


def test_builtin_spots_load_by_name_and_a_file_wins(tmp_path, monkeypatch) -> None:
    from pokerlab.games.postflop.spot import builtin_spots, resolve_spot

    assert builtin_spots() == ["flop", "river", "turn"]
    for name in builtin_spots():
        assert load_spot(name) == load_spot(EXAMPLES / f"{name}.toml")
        assert spot_from_params(spot=name) == load_spot(EXAMPLES / f"{name}.toml")
    assert load_spot("TURN") == load_spot("turn")
    # a file of that name in the working folder wins over the built-in spot
    monkeypatch.chdir(tmp_path)
    (tmp_path / "turn").write_text("not a spot")
    assert resolve_spot("turn") == Path("turn")
    with pytest.raises(PokerlabError, match="ends in .toml or .json"):
        load_spot("turn")
    # a folder of that name does not
    (tmp_path / "river").mkdir()
    assert resolve_spot("river") == EXAMPLES / "river.toml"


@pytest.mark.parametrize(
    ("spot", "needle"),
    [
        (
            "tunr",
            "unknown spot 'tunr': not a file and not a built-in spot; built-in spots: "
            "flop, river, turn",
        ),
        ("", "unknown spot ''"),
        (
            "nosuch.toml",
            "cannot read spot file nosuch.toml: No such file or directory "
            "(built-in spots: flop, river, turn)",
        ),
        ("x" * 300, "unknown spot"),
        ("x" * 300 + ".toml", "File name too long"),
    ],
    ids=["misspelt", "empty", "missing file", "long name", "long file name"],
)
def test_unknown_spot_names_list_the_builtins(
    spot: str, needle: str, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PokerlabError) as info:
        load_spot(spot)
    assert needle in str(info.value)


@pytest.mark.parametrize("path", EXAMPLE_SPOTS, ids=lambda p: p.name)
def test_example_spots_load_and_round_trip(path: Path) -> None:
    spot = load_spot(path)
    assert SpotConfig.from_dict(spot.to_dict()) == spot
    assert SpotConfig.from_dict(json.loads(json.dumps(spot.to_dict()))) == spot


@pytest.mark.parametrize(
    ("name", "street", "oop_combos", "ip_combos"),
    [("river", "river", 220, 240), ("turn", "turn", 227, 250), ("flop", "flop", 246, 265)],
)
def test_b6_example_spots_have_the_benchmark_combo_counts(
    name: str, street: str, oop_combos: int, ip_combos: int
) -> None:
    spot = load_spot(EXAMPLES / f"{name}.toml")
    assert spot.street == street
    assert (spot.pot, spot.stack) == (200.0, 900.0)
    assert spot.tree == TreeOptions(1.5, 0.15, 0.1, 3)
    oop, ip = spot.weights()
    assert oop.shape == ip.shape == (1326,)
    assert (combo_count(oop), combo_count(ip)) == (oop_combos, ip_combos)


def test_b6_example_sizes() -> None:
    turn = load_spot(EXAMPLES / "turn.toml")
    for player in (0, 1):
        assert turn.sizes[("turn", player)] == StreetSizes(_pot(0.5) + (A,), (A,))
        assert turn.sizes[("river", player)] == StreetSizes(_pot(0.33, 0.75) + (A,), (A,))
    flop = load_spot(EXAMPLES / "flop.toml")
    assert flop.sizes[("flop", 1)] == StreetSizes(_pot(0.33, 0.75), (A,))
    assert flop.sizes[("turn", 0)] == turn.sizes[("turn", 0)]
    assert flop.sizes[("river", 1)] == turn.sizes[("river", 1)]
    river = load_spot(EXAMPLES / "river.toml")
    chips = tuple(BetSize("chips", c) for c in (66.0, 150.0, 300.0))
    assert set(river.sizes) == {("river", 0), ("river", 1)}
    assert river.sizes[("river", 0)] == StreetSizes(chips + (A,), _pot(0.6))


# --- from_dict: layout rules ---


def test_turn_spot_from_dict() -> None:
    spot = SpotConfig.from_dict(_turn_dict())
    assert spot.board == tuple(parse_cards("Td9d6hQc"))
    assert spot.streets == ("turn", "river")
    assert spot.rake_rate == 0.0 and spot.rake_cap is None
    assert spot.sizes[("turn", 1)].donk is None


def test_streets_before_the_board_are_ignored() -> None:
    data = _turn_dict()
    data["flop"] = {"bet": "10%", "raise": "3x"}
    spot = SpotConfig.from_dict(data)
    assert "flop" not in spot.to_dict()
    assert ("flop", 0) not in spot.sizes


def test_absent_street_gets_default_sizes() -> None:
    data = _turn_dict()
    del data["river"]
    spot = SpotConfig.from_dict(data)
    assert spot.sizes[("river", 0)] == spot.sizes[("river", 1)] == DEFAULT_SIZES
    assert DEFAULT_SIZES == StreetSizes(_pot(0.5), (A,), None)


def test_player_subtables_override_the_street_table() -> None:
    data = _turn_dict()
    data["river"] = {"bet": "33%", "raise": "a", "donk": "25%", "ip": {"raise": "2.5x, a"}}
    data["turn"]["oop"] = {"bet": "e"}
    spot = SpotConfig.from_dict(data)
    assert spot.sizes[("river", 0)] == StreetSizes(_pot(0.33), (A,), _pot(0.25))
    assert spot.sizes[("river", 1)] == StreetSizes(_pot(0.33), (BetSize("prev", 2.5), A), None)
    assert spot.sizes[("turn", 0)].bet == (BetSize("geometric", math.inf, 0),)
    assert spot.sizes[("turn", 1)].bet == _pot(0.5) + (A,)
    out = spot.to_dict()
    assert out["river"] == {
        "bet": "33%",
        "oop": {"raise": "a"},
        "ip": {"raise": "2.5x, a"},
        "donk": "25%",
    }
    assert SpotConfig.from_dict(out) == spot


def test_empty_donk_means_no_lead() -> None:
    data = _turn_dict()
    data["turn"]["donk"] = ""
    spot = SpotConfig.from_dict(data)
    assert spot.sizes[("turn", 0)].donk == ()
    assert spot.sizes[("river", 0)].donk is None
    assert SpotConfig.from_dict(spot.to_dict()) == spot


def test_rake_cap_zero_is_refused_with_a_rake_and_absent_means_no_cap() -> None:
    data = _turn_dict()
    data["rake_rate"] = 0.05
    spot = SpotConfig.from_dict(data)
    assert spot.rake_cap is None and "rake_cap" not in spot.to_dict()
    data["rake_cap"] = 0
    with pytest.raises(PokerlabError, match="rake_cap 0 with rake_rate 0.05: postflop-solver"):
        SpotConfig.from_dict(data)
    data["rake_rate"] = 0.0  # no rake: a cap of 0 changes nothing
    assert SpotConfig.from_dict(data).rake_cap == 0.0


def test_raise_limit_none_means_no_limit() -> None:
    data = _turn_dict()
    data["tree"]["raise_limit"] = "none"
    spot = SpotConfig.from_dict(data)
    assert spot.tree.raise_limit is None
    assert spot.to_dict()["tree"]["raise_limit"] == "none"
    assert SpotConfig.from_dict(spot.to_dict()) == spot
    data["tree"]["raise_limit"] = None  # JSON null
    assert SpotConfig.from_dict(data) == spot
    made = spot_from_params(board="Td9d6hQc7s", ranges=("AA", "KK"), pot=10, stack=200,
                            raise_limit=None)  # fmt: skip
    assert made.tree.raise_limit is None
    assert spot_from_params(board="Td9d6hQc7s", ranges=("AA", "KK"), pot=10, stack=200).tree == (
        TreeOptions()
    )
    with pytest.raises(PokerlabError, match="raise_limit must be a non-negative integer or 'none'"):
        TreeOptions(raise_limit="unlimited")


def test_board_as_a_list_and_rake() -> None:
    data = _turn_dict()
    data["board"] = ["Td", "9d", "6h", "Qc"]
    data["rake_rate"] = 0.05
    data["rake_cap"] = 3
    spot = SpotConfig.from_dict(data)
    assert spot.board == tuple(parse_cards("Td9d6hQc"))
    assert (spot.rake_rate, spot.rake_cap) == (0.05, 3.0)


def test_weights_remove_board_cards_and_keep_weights() -> None:
    data = _turn_dict()
    data["oop_range"] = "AA, TT:0.5"
    spot = SpotConfig.from_dict(data)
    oop, _ = spot.weights()
    assert oop.dtype == np.float64
    assert combo_count(oop) == 6 + 0.5 * 3  # TdTx gone: 3 TT combos left at weight 0.5
    assert np.count_nonzero(oop) == 9


# --- validation: one clear error naming the key or token ---

BAD_DICTS: list[tuple[str, Any, str]] = [
    ("board", "Td9d", "3, 4 or 5 cards"),
    ("board", "Td9d6hQc7s2c", "3, 4 or 5 cards"),
    ("board", "Td9d6hTd", "'Td'"),
    ("board", "Td9d6hXx", "'Xx'"),
    ("board", 42, "board"),
    ("pot", 0, "pot"),
    ("pot", -5, "pot"),
    ("pot", "200", "pot"),
    ("pot", True, "pot"),
    ("pot", math.nan, "pot"),
    ("stack", -1, "stack"),
    ("stack", math.inf, "stack"),
    ("rake_rate", 1.0, "rake_rate"),
    ("rake_rate", -0.1, "rake_rate"),
    ("rake_cap", -1, "rake_cap"),
    ("oop_range", "AA, ZZ", "'ZZ'"),
    ("oop_range", 5, "oop_range"),
    ("ip_range", "TdTc", "ip_range"),  # empty once the board's Td is removed
    ("ip_range", "", "ip_range"),
    ("colour", "blue", "'colour'"),
    ("river", "33%", "[river]"),
    ("tree", {"raise_limit": 2.5}, "raise_limit"),
    ("tree", {"raise_limit": -1}, "raise_limit"),
    ("tree", {"merging_threshold": -0.1}, "merging_threshold"),
    ("tree", {"add_allin_threshold": "big"}, "add_allin_threshold"),
    ("tree", {"max_bets": 3}, "'max_bets'"),
]


@pytest.mark.parametrize(("key", "value", "named"), BAD_DICTS)
def test_bad_values_name_the_key_or_token(key: str, value: Any, named: str) -> None:
    data = _turn_dict()
    data[key] = value
    with pytest.raises(PokerlabError) as info:
        SpotConfig.from_dict(data)
    assert named in str(info.value)


def test_unknown_key_lists_the_known_ones() -> None:
    data = _turn_dict()
    data["turn"]["sizes"] = "50%"
    with pytest.raises(PokerlabError, match=r"unknown key 'sizes' in \[turn\]; known keys: bet"):
        SpotConfig.from_dict(data)


def test_missing_key_is_named() -> None:
    data = _turn_dict()
    del data["stack"]
    with pytest.raises(PokerlabError, match="'stack'"):
        SpotConfig.from_dict(data)


@pytest.mark.parametrize(
    ("street_table", "named", "token"),
    [
        ({"bet": "33%%"}, "[river] bet (OOP)", "33%%"),
        ({"raise": "a, 2.5x, -1c"}, "[river] raise (OOP)", "-1c"),
        ({"bet": "2.5x"}, "[river] bet (OOP)", "2.5x"),
        ({"ip": {"bet": "50%,,a"}}, "[river.ip] bet (IP)", ","),
        ({"donk": "3x"}, "[river] donk (OOP)", "3x"),
        ({"oop": {"raise": "0e"}}, "[river.oop] raise (OOP)", "0e"),
    ],
)
def test_bet_size_errors_name_street_player_and_token(
    street_table: dict, named: str, token: str
) -> None:
    data = _turn_dict()
    data["river"] = street_table
    with pytest.raises(ParseError) as info:
        SpotConfig.from_dict(data)
    assert named in str(info.value)
    assert info.value.token == token


def test_donk_is_refused_on_the_flop_and_for_ip() -> None:
    data = _turn_dict()
    data["board"] = "Td9d6h"
    data["flop"] = {"donk": "50%"}
    with pytest.raises(PokerlabError, match=r"\[flop\] donk"):
        SpotConfig.from_dict(data)
    data = _turn_dict()
    data["turn"]["ip"] = {"donk": "50%"}
    with pytest.raises(PokerlabError, match=r"\[turn.ip\] donk"):
        SpotConfig.from_dict(data)


def test_bet_size_not_a_string_is_named() -> None:
    data = _turn_dict()
    data["turn"]["bet"] = 0.5
    with pytest.raises(PokerlabError, match=r"\[turn\] bet must be a bet-size string"):
        SpotConfig.from_dict(data)


def test_direct_construction_validates_sizes_keys() -> None:
    board = tuple(parse_cards("Td9d6hQc"))
    with pytest.raises(PokerlabError, match="sizes key"):
        SpotConfig(board, 200.0, 900.0, OOP, IP, sizes={("flop", 0): DEFAULT_SIZES})
    with pytest.raises(PokerlabError, match="donk"):
        SpotConfig(
            board,
            200.0,
            900.0,
            OOP,
            IP,
            sizes={("turn", 1): StreetSizes(_pot(0.5), (A,), _pot(0.3))},
        )
    spot = SpotConfig(board, 200.0, 900.0, OOP, IP)
    assert spot.sizes[("river", 1)] == DEFAULT_SIZES
    assert SpotConfig.from_dict(spot.to_dict()) == spot


# --- spot_from_params: what load_game("postflop", ...) receives ---


def test_params_with_string_sizes_equal_the_example_file() -> None:
    spot = spot_from_params(
        board="Td9d6hQc",
        ranges=(OOP, IP),
        pot=200,
        stack=900,
        bets={"turn": {"bet": "50%, a"}, "river": {"bet": "33%, 75%, a"}},
        raises="a",
        add_allin_threshold=1.5,
        force_allin_threshold=0.15,
        merging_threshold=0.1,
    )
    assert spot == load_spot(EXAMPLES / "turn.toml")


def test_params_string_bets_apply_to_every_street_and_player() -> None:
    spot = spot_from_params(
        board="Td9d6h",
        ranges=("AA", "KK"),
        pot=10,
        stack=100,
        bets="50%, a",
        raises="3x",
        donks="25%",
        raise_limit=2,
    )
    for street in ("flop", "turn", "river"):
        for player in (0, 1):
            sizes = spot.sizes[(street, player)]
            assert sizes.bet == _pot(0.5) + (A,)
            assert sizes.raise_ == (BetSize("prev", 3.0),)
            want_donk = _pot(0.25) if street != "flop" and player == 0 else None
            assert sizes.donk == want_donk
    assert spot.tree.raise_limit == 2


def test_params_defaults_and_separate_ranges() -> None:
    spot = spot_from_params(board="Td9d6hQc7s", oop_range="AA", ip_range="KK", pot=1, stack=0)
    assert spot.sizes[("river", 0)] == DEFAULT_SIZES
    assert spot.tree == TreeOptions()


def test_params_accept_numpy_numbers() -> None:
    spot = spot_from_params(
        board="Td9d6h",
        ranges=("AA", "KK"),
        pot=np.int64(200),
        stack=np.float64(900.5),
        raise_limit=np.int64(2),
    )
    assert (spot.pot, spot.stack, spot.tree.raise_limit) == (200.0, 900.5, 2)
    assert type(spot.tree.raise_limit) is int
    with pytest.raises(PokerlabError, match="pot"):
        spot_from_params(board="Td9d6h", ranges=("AA", "KK"), pot=np.True_, stack=1)


def test_params_spot_file(tmp_path: Path) -> None:
    assert spot_from_params(spot=EXAMPLES / "river.toml") == load_spot(EXAMPLES / "river.toml")
    with pytest.raises(PokerlabError, match="pot"):
        spot_from_params(spot=EXAMPLES / "river.toml", pot=5)


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"board": "Td9d6h", "ranges": ("AA", "KK"), "pot": 1, "stack": 1, "bet": "50%"}, "'bet'"),
        ({"board": "Td9d6h", "ranges": ("AA", "KK"), "stack": 1}, "pot="),
        ({"board": "Td9d6h", "pot": 1, "stack": 1}, "ranges="),
        ({"board": "Td9d6h", "ranges": "AA", "pot": 1, "stack": 1}, "ranges"),
        (
            {
                "board": "Td9d6h",
                "ranges": ("AA", "KK"),
                "pot": 1,
                "stack": 1,
                "bets": {"preflop": {"bet": "a"}},
            },
            "'preflop'",
        ),
        ({"board": "Td9d6h", "ranges": ("AA", "KK"), "pot": 1, "stack": 1, "bets": 0.5}, "bets"),
        (
            {"board": "Td9d6h", "ranges": ("AA", "KK"), "pot": 1, "stack": 1, "raises": "33%%"},
            "'33%%'",
        ),
        ({"board": "Td9d6h", "ranges": ("AA", "KK"), "pot": 1, "stack": -1}, "stack"),
    ],
)
def test_bad_params_are_named(params: dict, named: str) -> None:
    with pytest.raises(PokerlabError) as info:
        spot_from_params(**params)
    assert named in str(info.value)


# --- files ---


def test_json_spot_file_loads_like_toml(tmp_path: Path) -> None:
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(_turn_dict()))
    assert load_spot(path) == load_spot(EXAMPLES / "turn.toml")


@pytest.mark.parametrize(
    ("name", "content", "named"),
    [
        ("bad.toml", b'board = "Td9d6h"\npot = = 3\n', "line 2"),
        ("bad.json", b'{"board": "Td9d6h",\n "pot": }', "line 2"),
        ("bad.toml", b'board = "Td9d6h"\n# \xff\xfe\n', "line 2"),
        ("bad.json", b"[1, 2, 3]", "table"),
        ("bad.json", b"[" * 100_000, "bad.json"),
        ("bad.toml", b'board = "Td9d6h"\n', "'pot'"),
        ("bad.txt", b"", ".txt"),
    ],
)
def test_junk_files_give_one_clear_error(
    tmp_path: Path, name: str, content: bytes, named: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(PokerlabError) as info:
        load_spot(path)
    assert named in str(info.value)
    assert name in str(info.value)


def test_missing_file_is_a_pokerlab_error(tmp_path: Path) -> None:
    with pytest.raises(PokerlabError, match="nothere.toml"):
        load_spot(tmp_path / "nothere.toml")


def test_file_errors_keep_token_and_position(tmp_path: Path) -> None:
    path = tmp_path / "spot.toml"
    path.write_text(
        'board = "Td9d6h"\npot = 1\nstack = 1\noop_range = "AA"\n'
        'ip_range = "KK"\n[turn]\nbet = "50%, 33%%"\n'
    )
    with pytest.raises(ParseError) as info:
        load_spot(path)
    assert (info.value.token, info.value.position) == ("33%%", 5)
    assert "spot.toml: [turn] bet (OOP)" in str(info.value)


# --- properties ---

_size_text = st.sampled_from(["", "33%", "50%, a", "2e, 75%", "100c", "e150%, a", "a"])
_raise_text = st.sampled_from(["", "a", "2.5x", "60%, a", "3x, 200c", "e"])


@st.composite
def _spot_dicts(draw: st.DrawFn) -> dict[str, Any]:
    board = draw(st.sampled_from(["Td9d6h", "Td9d6hQc", "Td9d6hQc7s", "2c3c4c"]))
    data: dict[str, Any] = {
        "board": board,
        "pot": draw(st.floats(0.5, 1e6)),
        "stack": draw(st.floats(0.0, 1e6)),
        "oop_range": draw(st.sampled_from(["AA", "KK+, AKs:0.5", OOP])),
        "ip_range": draw(st.sampled_from(["QQ", "22+", IP])),
    }
    if draw(st.booleans()):
        data["rake_rate"] = draw(st.floats(0.0, 0.99))
        data["rake_cap"] = draw(st.floats(0.01, 100.0) | st.none())
    streets = ("flop", "turn", "river")[len(board) // 2 - 3 :]
    for street in streets:
        if draw(st.booleans()):
            continue
        table: dict[str, Any] = {}
        for key, texts in (("bet", _size_text), ("raise", _raise_text)):
            if draw(st.booleans()):
                table[key] = draw(texts)
        if street != "flop" and draw(st.booleans()):
            table["donk"] = draw(_size_text)
        for player in ("oop", "ip"):
            if draw(st.booleans()):
                table[player] = {"bet": draw(_size_text)}
        data[street] = table
    if draw(st.booleans()):
        data["tree"] = {
            "raise_limit": draw(st.integers(0, 9) | st.just("none") | st.none()),
            "merging_threshold": draw(st.floats(0.0, 1.0)),
        }
    return data


@settings(max_examples=100, deadline=None)
@given(_spot_dicts())
def test_valid_spots_round_trip(data: dict[str, Any]) -> None:
    spot = SpotConfig.from_dict(data)
    assert SpotConfig.from_dict(spot.to_dict()) == spot
    assert SpotConfig.from_dict(json.loads(json.dumps(spot.to_dict()))) == spot


_junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(
        [
            "board",
            "pot",
            "stack",
            "oop_range",
            "ip_range",
            "rake_rate",
            "rake_cap",
            "turn",
            "river",
            "tree",
            "flop",
            "extra",
        ]
    ),
    _junk,
)
def test_junk_values_raise_only_pokerlab_errors(key: str, value: Any) -> None:
    data = copy.deepcopy(_turn_dict())
    data[key] = value
    try:
        SpotConfig.from_dict(data)
    except PokerlabError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(["x.toml", "x.json"]))
def test_junk_bytes_raise_only_pokerlab_errors(
    tmp_path_factory: Any, data: bytes, name: str
) -> None:
    path = tmp_path_factory.mktemp("junk") / name
    path.write_bytes(data)
    try:
        load_spot(path)
    except PokerlabError:
        pass


# --- the documentation's examples run as written ---

DOC = ROOT / "docs" / "postflop-spots.md"


def test_doc_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 2
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})


def test_doc_toml_example_loads(tmp_path: Path) -> None:
    (block,) = re.findall(r"```toml\n(.*?)```", DOC.read_text(), re.S)
    path = tmp_path / "doc.toml"
    path.write_text(block)
    spot = load_spot(path)
    assert spot.street == "turn"
    assert (spot.rake_rate, spot.rake_cap) == (0.05, 3.0)
    assert spot.sizes[("turn", 0)] == StreetSizes(_pot(0.5) + (A,), (A,), _pot(0.33))
    assert spot.sizes[("turn", 1)] == StreetSizes(_pot(0.75) + (A,), (A,), None)
    assert spot.sizes[("river", 1)] == StreetSizes(_pot(0.33, 0.75) + (A,), (A,), None)


def test_equal_spots_hash_alike() -> None:
    spot = load_spot(EXAMPLES / "turn.toml")
    again = SpotConfig.from_dict(spot.to_dict())
    assert again is not spot and hash(again) == hash(spot)
    assert len({spot, again, load_spot(EXAMPLES / "river.toml")}) == 2


# --- river.toml gives the B6 river tree under the documented tree options ---


def _river_tree(spot: SpotConfig) -> tuple[int, int, set[int]]:
    """(decision nodes, terminal nodes, bet/raise totals) of a one-street river tree.

    An independent reading of ``docs/postflop-spots.md``: amounts from ``resolve_bet`` rounded to
    whole chips; a bet or raise to ``t`` becomes all-in when ``t + round(0.15 * (pot0 + 2 t))``
    reaches the stack (force-all-in threshold); an all-in is added when it puts in at most
    ``round(1.5 * p)`` over the call (add-all-in threshold, ``p`` the pot after calling). Merging
    never fires in this spot (checked).
    """
    pot0, stack, opts = spot.pot, spot.stack, spot.tree
    totals: set[int] = set()

    def options(player: int, prev: float, mine: float, raises: int) -> list[float]:
        """Street totals the player can bet or raise to, facing ``prev`` with ``mine`` in."""
        sizes = spot.sizes[("river", player)]
        listed = sizes.raise_ if prev > 0 else sizes.bet
        if prev > 0 and raises >= opts.raise_limit:
            return []
        to_call = prev - mine
        pot = pot0 + prev + mine
        out: set[float] = set()
        for size in listed:
            add = resolve_bet(
                size, pot=pot, prev_bet=prev, to_call=to_call, stack=stack - mine, streets_left=1
            )
            target = prev + round(add)
            if target + round(opts.force_allin_threshold * (pot0 + 2 * target)) >= stack:
                target = stack
            out.add(min(target, stack))
        if stack - prev <= round(opts.add_allin_threshold * (pot + to_call)):
            out.add(stack)
        fractions = sorted((t - prev) / (pot + to_call) for t in out)
        for small, big in zip(fractions, fractions[1:], strict=False):
            assert (1 + big) / (1 + small) >= 1 + opts.merging_threshold
        return sorted(out)

    def walk(player: int, prev: float, mine: float, theirs: float, raises: int) -> tuple[int, int]:
        """Counts below a decision node; ``prev`` is the bet faced (0: none)."""
        decisions, terminals = 1, 0
        if prev > mine:  # facing a bet: fold and call end the river
            terminals += 2
        elif player == 1:  # IP after a check: checking back is a showdown
            terminals += 1
        else:  # OOP opens: check to IP
            d, t = walk(1, 0.0, 0.0, 0.0, 0)
            decisions, terminals = decisions + d, terminals + t
        if prev < stack:
            for target in options(player, prev, mine, raises):
                totals.add(int(target))
                d, t = walk(1 - player, target, theirs, target, raises + (prev > 0))
                decisions, terminals = decisions + d, terminals + t
        return decisions, terminals

    decisions, terminals = walk(0, 0.0, 0.0, 0.0, 0)
    return decisions, terminals, totals


def test_river_example_gives_the_b6_tree() -> None:
    spot = load_spot(EXAMPLES / "river.toml")
    decisions, terminals, totals = _river_tree(spot)
    assert (decisions, terminals) == (22, 41)
    assert totals == {66, 150, 300, 265, 450, 900}
    # the percentages B6 mentions give the same tree
    data = spot.to_dict()
    data["river"] = {"bet": "33%, 75%, 150%, a", "raise": "60%"}
    assert _river_tree(SpotConfig.from_dict(data)) == (22, 41, totals)
