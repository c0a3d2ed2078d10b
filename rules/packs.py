"""Game data packs: the static facts of one edition, read from TOML with stdlib `tomllib`.

Why over 500 lines: the record types and their loader are one format (docs/pack-format.md): each table's
checks sit beside the record they fill, and inheritance (`inherited_tables`) merges tables before
they are built.

Why data and not code: the map, countries, cards and event parameters differ per edition (TK, DS,
AWAW, demo) and a user must be able to complete the map for a real game without touching Python.
Every ``*.toml`` file of a pack directory is merged; tables the engine does not know (e.g. the
``[vassal]`` table read by `bridge.mapping.mapper`) are kept unvalidated in `Pack.extra`.
See docs/pack-format.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.facts import Need, parse_needs
from vassal_parser import user_cache
from vassal_parser.errors import InputError

PACKS_DIR = Path(__file__).resolve().parent / "packs"
KNOWN_TABLES = frozenset(
    {"pack", "countries", "hexes", "areas", "border_defense", "cards", "order", "events", "complete"}
)
FACTIONS = ("Axis", "Western", "Soviet")
COUNTRY_KINDS = ("major", "minor", "dependent")  # "dependent": a Dependent, not a Minor Country


@dataclass(frozen=True)
class HexInfo:
    """What the rules read of one hex; what is not given is the rules' default (not a City, no Port...)."""

    id: str
    country: str
    area: str | None = None  # a region / ceded-land area inside the country
    city: bool = False
    capital: bool = False
    port: bool = False
    strategic: bool = False
    strategic_faction: str | None = None  # whose Strategic Hex it is, as the map prints it
    partisan_base: bool = False  # a Partisan Base hex (16.1.1: where Partisan Bases may be placed)
    white_star: bool = False
    road: bool = False
    rail: bool = False
    name: str | None = None
    adjacent: tuple[str, ...] = ()
    borders: tuple[str, ...] = ()  # countries this hex shares a border with, when adjacency is incomplete


@dataclass(frozen=True)
class CountryInfo:
    """What the rules read of one country: its kind decides which events can ever touch it."""

    name: str
    kind: str  # "major" | "minor" | "dependent" (a Dependent that is not a Minor Country: never conquered)
    capital: str | None = None
    dependent_of: str | None = None  # a Dependent of this home country (e.g. Syria -> France)
    colonial_unit: bool = False  # has an associated British 1-2-2 colonial unit (16.1.1 Step 3)
    region: str | None = None  # "Europe" / "Pacific" when both maps are combined
    neighbors: tuple[str, ...] = ()  # countries it shares a border with (Influence options, 15.19)
    faction: str | None = None  # default alignment when a position does not list the country (Major Powers)
    adjective: str | None = None  # "German", "Russian": how the rules text names its units (plan text)


@dataclass(frozen=True)
class AreaInfo:
    """A region or Ceded Land area: while its marker is in the Ceded Lands Box it belongs to `ceded_to`."""

    id: str
    name: str
    country: str  # the original country
    ceded_to: str | None = None
    marker_faction: str | None = None  # whose Force Pool the marker comes from
    dependent: bool = False  # becomes a Dependent of `ceded_to` (Ostland regions) rather than a part of it
    strategic_hex: str | None = None  # Ostland Accord 16.2.2 Step 3
    kind: str = "ceded_land"  # "ceded_land" | "ostland_region" | "region"
    neighbors: tuple[str, ...] = ()  # countries it shares a border with (16.2.2 Step 10 Influence)
    interns_allied: bool = False  # German Dependent whose creation interns Allied counters (16.7)
    # A second marker for another area's hexes: DS 16.2.6 Step 4 cedes the Marshall Islands (e3612) to
    # Britain or to the US, one marker each; the hexes name one area, the other marker covers them too.
    hexes_of: str | None = None


@dataclass(frozen=True)
class CardInfo:
    """A card and the events it puts in play (the events' own text lives in the pack's events table)."""

    id: str
    title: str
    faction: str
    events: tuple[str, ...] = ()


@dataclass(frozen=True)
class EventSpec:
    """One event as the pack lists it: the rule number, which implementation runs it, its parameters."""

    rule: str
    impl: str
    title: str
    once: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    needs: tuple[Need, ...] = ()  # the map facts it reads (rules.facts): missing ones make it undecided


@dataclass
class Pack:
    """One edition's static facts, read once from the pack's TOML: what the engine reads instead."""

    name: str
    edition: str
    title: str
    path: Path
    countries: dict[str, CountryInfo]
    hexes: dict[str, HexInfo]
    areas: dict[str, AreaInfo]
    border_defense: dict[str, dict[str, Any]]
    cards: dict[str, CardInfo]
    order: dict[str, tuple[str, ...]]  # faction -> permanent events in the order listed (6.2 Step 1)
    events: dict[str, EventSpec]
    incomplete: tuple[str, ...] = ()  # what a user must complete before using the pack for a real game
    extra: dict[str, Any] = field(default_factory=dict)  # unknown tables, unvalidated (e.g. [vassal])
    meta: dict[str, Any] = field(default_factory=dict)
    # [complete]: fact kind -> the subjects whose facts the pack locates in full ("all" = every subject).
    # None when the pack has no [complete] table: then any located fact is taken as the whole fact.
    complete: dict[str, frozenset[str] | str] | None = None

    def hex(self, hex_id: str) -> HexInfo:
        return self.hexes[hex_id]

    def country(self, name: str) -> CountryInfo:
        return self.countries[name]

    def event(self, rule: str) -> EventSpec:
        return self.events[rule]

    def hexes_where(self, **match: Any) -> list[HexInfo]:
        return [h for h in self.hexes.values() if all(getattr(h, k) == v for k, v in match.items())]


def _is_dir(path: Path) -> bool:
    """`Path.is_dir`, False also where the name cannot be a path at all (too long, a NUL byte):
    a pack name comes from a position file, which may say anything."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


# Packs known by name that do not live under rules/packs: the demo world's own pack, so that
# `--pack demo` works wherever the project is installed (it ships with module_patches).
NAMED_PACKS: dict[str, Path] = {
    "demo": Path(__file__).resolve().parents[1] / "module_patches" / "demo" / "pack",
}


def resolve_pack_dir(name_or_path: str | Path) -> Path:
    """A pack is a directory: a bare name of a built-in pack under rules/packs/, else a path.

    Why the built-in name first: a folder that happens to be called `tk` in the current directory must not
    silently replace the built-in pack (issue 12.6); give it as a path (`./tk`) to use it. (A folder beside
    the position file is preferred by `adjutant plan` itself, before this is called.)"""
    text = str(name_or_path)
    named = NAMED_PACKS.get(text, PACKS_DIR / text)
    bare = isinstance(name_or_path, str) and "/" not in text and "\\" not in text and text not in (".", "..")
    if bare and _is_dir(named):
        return named
    candidate = Path(name_or_path)
    if _is_dir(candidate):
        return candidate
    known = sorted(p.name for p in PACKS_DIR.iterdir() if p.is_dir()) if PACKS_DIR.is_dir() else []
    known = sorted({*known, *(name for name, path in NAMED_PACKS.items() if path.is_dir())})
    shown = str(name_or_path) if len(str(name_or_path)) <= 100 else str(name_or_path)[:97] + "..."
    raise InputError(shown, f"no such pack (give a directory or one of: {', '.join(known)})")


def _unreadable(path: Path, exc: OSError) -> str:
    """Why a pack file cannot be read, as its owner would fix it."""
    if path.is_symlink() and not path.exists():
        return (f"a symbolic link to {os.readlink(path)!r}, which does not exist; remove the link or restore "
                "its file")
    return f"cannot be read ({exc.strerror or exc})"


def parse_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)`, kept between runs under the exact text (vassal_parser/user_cache.py).

    Why: parsing a pack's TOML (and importing `tomllib` to do it) is a tenth of a small `check`
    (issue 27), and a pack's files seldom change between two checks. A bad file is never kept."""
    kept = user_cache.store("toml").get(text)
    if isinstance(kept, dict):
        return kept
    import tomllib

    data = tomllib.loads(text)
    user_cache.store("toml").put(text, data)
    return data


def _read_tables(pack_dir: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    merged: dict[str, Any] = {}
    origin: dict[str, Path] = {}
    files = sorted(pack_dir.glob("*.toml"))
    if not files:
        raise InputError(pack_dir, "pack directory holds no .toml files")
    for path in files:
        try:
            data = parse_toml(path.read_text(encoding="utf-8"))
        except ValueError as exc:  # tomllib.TOMLDecodeError, UnicodeDecodeError
            raise InputError(path, f"not valid TOML: {exc}") from None
        except OSError as exc:  # a link to nowhere (`map.toml -> gone`), a file one may not read
            raise InputError(path, _unreadable(path, exc)) from None
        for table, value in data.items():
            if table in merged and isinstance(merged[table], dict) and isinstance(value, dict):
                clash = set(merged[table]) & set(value)
                if clash:
                    raise InputError(
                        path,
                        f"[{table}] redefines {', '.join(sorted(clash))} "
                        f"already given in {origin[table].name}",
                    )
                merged[table].update(value)
            elif table in merged:
                raise InputError(path, f"[{table}] already given in {origin[table].name}")
            else:
                merged[table] = value
                origin[table] = path
    return merged, origin


# Tables whose entries merge with the base pack's, entry by entry and field by field (see _inherit).
MERGED_TABLES = frozenset({"countries", "hexes", "areas", "border_defense", "cards", "events", "complete"})
GEOGRAPHY_TABLES = frozenset({"countries", "hexes", "areas", "border_defense"})
DEFAULT_BASE_TABLES = ("events", "order", "cards")


def base_dir_of(meta: Any, pack_dir: Path) -> Path | None:
    """The directory of the pack `[pack] base` names: a path relative to the pack, or a shipped name."""
    base = meta.get("base") if isinstance(meta, dict) else None
    if base is None:
        return None
    if not isinstance(base, str) or not base:
        raise InputError(pack_dir, "[pack] base must be a pack name or a directory")
    relative = (pack_dir / base).resolve()
    return relative if relative.is_dir() else resolve_pack_dir(base)


def _merge_entry(base: Any, derived: Any) -> Any:
    """One entry of a merged table: tables merge field by field (the derived pack's fields win)."""
    if isinstance(base, dict) and isinstance(derived, dict):
        return {**base, **derived}
    return derived


def _inherit(raw: dict[str, Any], origin: dict[str, Path], pack_dir: Path,
             seen: tuple[Path, ...] = ()) -> tuple[str, ...]:
    """`[pack] base = "tk"` + `base_tables = [...]`: reuse another pack's tables by reference.

    Why by reference (not a copy, not a symlink): a fix to `tk` reaches every pack derived from it,
    and a Windows checkout (no symlinks) reads the same data. For each table in `base_tables`
    (default: events, order, cards):
    * a table the derived pack does not give is the base's;
    * `countries`, `hexes`, `areas`, `border_defense`, `cards`, `events` and `complete` merge: the
      base's entries, then the derived pack's — a new key extends the table, a key the base has
      too overrides it field by field (`w3516 = {port = true}` keeps Paris's name, country, city);
    * any other table given by the derived pack (`order`) replaces the base's key by key.
    A base may itself have a base (chains are followed; a cycle is an error). Returns the base's
    `incomplete` notes when geography is inherited (they still apply to the derived pack).
    """
    meta = raw.get("pack", {})
    base_dir = base_dir_of(meta, pack_dir)
    if base_dir is None:
        return ()
    chain = (*seen, pack_dir.resolve())
    if base_dir.resolve() in chain:
        raise InputError(pack_dir, "[pack] base names the pack itself" if base_dir.resolve() == chain[-1]
                         else f"[pack] base {base_dir} leads back to this pack (a cycle)")
    base_raw, base_origin = _read_tables(base_dir)
    base_notes = _inherit(base_raw, base_origin, base_dir, chain)
    tables = meta.get("base_tables", list(DEFAULT_BASE_TABLES))
    if not isinstance(tables, list) or not all(isinstance(t, str) for t in tables):
        raise InputError(pack_dir, "[pack] base_tables must be a list of table names")
    for table in tables:
        if table not in base_raw:
            continue
        if table not in raw:
            raw[table] = base_raw[table]
            origin[table] = base_origin[table]
        elif isinstance(raw[table], dict) and isinstance(base_raw[table], dict):
            merged = dict(base_raw[table])
            for key, value in raw[table].items():
                merged[key] = _merge_entry(merged.get(key), value) if table in MERGED_TABLES else value
            raw[table] = merged
    if not GEOGRAPHY_TABLES & set(tables):
        return ()
    base_meta = base_raw.get("pack", {})
    own = base_meta.get("incomplete", []) if isinstance(base_meta, dict) else []
    return (*base_notes, *(str(n) for n in own))


def inherited_tables(pack_dir: Path) -> dict[str, Any]:
    """The raw tables a pack takes from its base (after the base's own inheritance), limited to its
    `base_tables`; {} without a base. Why: an editor writing a derived pack writes only what differs
    from these, so a later fix to the base still reaches every field the derived pack does not set."""
    raw, _origin = _read_tables(pack_dir)
    base_dir = base_dir_of(raw.get("pack", {}), pack_dir)
    if base_dir is None:
        return {}
    base_raw, base_origin = _read_tables(base_dir)
    _inherit(base_raw, base_origin, base_dir, (pack_dir.resolve(),))
    tables = raw.get("pack", {}).get("base_tables", list(DEFAULT_BASE_TABLES))
    return {t: base_raw[t] for t in tables if t in base_raw}


def _table(raw: dict[str, Any], name: str, where: Path) -> dict[str, Any]:
    value = raw.get(name, {})
    if not isinstance(value, dict):
        raise InputError(where, f"[{name}] must be a table")
    return value


def _build(cls: type, key: str, fields: Any, where: Path, what: str, **extra: Any) -> Any:
    if not isinstance(fields, dict):
        raise InputError(where, f"{what} {key!r} must be a table")
    allowed = set(cls.__dataclass_fields__)
    bad = set(fields) - allowed
    if bad:
        raise InputError(where, f"{what} {key!r}: unknown field(s) {', '.join(sorted(bad))}")
    values = {**fields, **extra}
    for name in ("adjacent", "borders", "events", "neighbors"):
        if name in values and isinstance(values[name], list):
            values[name] = tuple(values[name])
    try:
        return cls(**values)
    except TypeError as exc:
        raise InputError(where, f"{what} {key!r}: {exc}") from None


def load_pack(name_or_path: str | Path) -> Pack:
    """Load and cross-check a pack; every inconsistency is one InputError line naming the file."""
    pack_dir = resolve_pack_dir(name_or_path)
    raw, origin = _read_tables(pack_dir)
    base_notes = _inherit(raw, origin, pack_dir)

    def where(table: str) -> Path:
        return origin.get(table, pack_dir)

    def records(table: str, cls: type, what: str, key_field: str) -> dict[str, Any]:
        """One table's entries as `cls`, each given its TOML key as `key_field`."""
        return {
            k: _build(cls, k, v, where(table), what, **{key_field: k})
            for k, v in _table(raw, table, where(table)).items()
        }

    meta = _table(raw, "pack", where("pack"))
    countries = records("countries", CountryInfo, "country", "name")
    hexes = records("hexes", HexInfo, "hex", "id")
    areas = records("areas", AreaInfo, "area", "id")
    cards = records("cards", CardInfo, "card", "id")
    events: dict[str, EventSpec] = {}
    for rule, spec in _table(raw, "events", where("events")).items():
        if not isinstance(spec, dict) or "impl" not in spec:
            raise InputError(where("events"), f"event {rule!r} must be a table with an 'impl'")
        spec = dict(spec)
        events[rule] = EventSpec(
            rule=rule,
            impl=spec.pop("impl"),
            title=spec.pop("title", rule),
            once=bool(spec.pop("once", False)),
            needs=parse_needs(spec.pop("needs", None), where("events"), rule),
            params=spec,
        )
    order = {f: tuple(v) for f, v in _table(raw, "order", where("order")).items()}
    border_defense = _table(raw, "border_defense", where("border_defense"))

    for hex_id, info in hexes.items():
        if info.country not in countries:
            raise InputError(where("hexes"), f"hex {hex_id} names unknown country {info.country!r}")
        if info.area is not None and info.area not in areas:
            raise InputError(where("hexes"), f"hex {hex_id} names unknown area {info.area!r}")
        if info.strategic_faction is not None and info.strategic_faction not in FACTIONS:
            raise InputError(where("hexes"), f"hex {hex_id}: strategic_faction must be one of "
                                             f"{', '.join(FACTIONS)}")
        for other in info.adjacent:
            if other not in hexes:
                raise InputError(where("hexes"), f"hex {hex_id} is adjacent to unknown hex {other!r}")
    for name, info in countries.items():
        if info.capital is not None and info.capital not in hexes:
            raise InputError(where("countries"), f"country {name}: capital {info.capital} is not a known hex")
        if info.dependent_of is not None and info.dependent_of not in countries:
            raise InputError(
                where("countries"), f"country {name}: dependent_of unknown {info.dependent_of!r}"
            )
        if info.faction is not None and info.faction not in FACTIONS:
            raise InputError(where("countries"), f"country {name}: faction must be Axis, Western or Soviet")
        if info.kind not in COUNTRY_KINDS:
            raise InputError(
                where("countries"), f"country {name}: kind must be one of {', '.join(COUNTRY_KINDS)}"
            )
        if info.kind == "dependent" and info.dependent_of is None:
            raise InputError(where("countries"), f"country {name}: kind 'dependent' needs 'dependent_of'")
    for area_id, area in areas.items():
        for country in (area.country, area.ceded_to):
            if country is not None and country not in countries:
                raise InputError(where("areas"), f"area {area_id} names unknown country {country!r}")
        if area.hexes_of is not None and area.hexes_of not in areas:
            raise InputError(where("areas"), f"area {area_id}: hexes_of names unknown area {area.hexes_of!r}")
        if area.strategic_hex is not None and area.strategic_hex not in hexes:
            raise InputError(where("areas"), f"area {area_id}: strategic_hex {area.strategic_hex} unknown")
    for card_id, card in cards.items():
        for rule in card.events:
            if rule not in events:
                raise InputError(
                    where("cards"), f"card {card_id} lists event {rule} with no [events.{rule!r}]"
                )
    for faction, rules in order.items():
        for rule in rules:
            if rule not in events:
                raise InputError(
                    where("order"), f"order.{faction} lists event {rule} with no [events.{rule!r}]"
                )
    for area_id in border_defense:
        if area_id not in areas:
            raise InputError(where("border_defense"), f"border_defense names unknown area {area_id!r}")

    complete = _complete_table(raw, where("complete"), countries, areas)
    extra = {k: v for k, v in raw.items() if k not in KNOWN_TABLES}
    own_notes = list(meta.get("incomplete", []))
    incomplete = [*own_notes, *(n for n in base_notes if n not in own_notes)]
    return Pack(
        name=str(meta.get("name", pack_dir.name)),
        edition=str(meta.get("edition", pack_dir.name)),
        title=str(meta.get("title", pack_dir.name)),
        path=pack_dir,
        countries=countries,
        hexes=hexes,
        areas=areas,
        border_defense=border_defense,
        cards=cards,
        order=order,
        events=events,
        incomplete=tuple(incomplete),
        extra=extra,
        meta=meta,
        complete=complete,
    )


OTHERS = "others"  # [complete] key: what a fact kind the table does not name means


def _complete_table(raw: dict[str, Any], where: Path, countries: dict[str, Any],
                    areas: dict[str, Any]) -> dict[str, frozenset[str] | str] | None:
    """`[complete] city_hexes = ["Poland", ...]` or `= "all"`: which located facts are the whole fact.

    Why: a pack that locates one City of a country (the one the rules text names) would otherwise let
    16.1.1 conquer that country when that one City falls; with `[complete]` such a country is undecided."""
    from rules.facts import FACT_KINDS

    if "complete" not in raw:
        return None
    table = _table(raw, "complete", where)
    out: dict[str, frozenset[str] | str] = {}
    for fact, value in table.items():
        if fact == OTHERS:  # `others = "trusted"`: facts the table does not name are taken as located
            if value not in ("trusted", "missing"):
                raise InputError(where, f'[complete] {OTHERS} must be "trusted" or "missing"')
            out[OTHERS] = str(value)
            continue
        if fact not in FACT_KINDS:
            raise InputError(where, f"[complete] names unknown fact {fact!r} "
                                    f"(known: {', '.join(sorted(FACT_KINDS))})")
        if value == "all":
            out[fact] = "all"
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(where, f"[complete] {fact} must be \"all\" or a list of names")
        # A Dependent an area becomes (DS "Inner Mongolia") is a subject of a country fact by its name.
        known = ({*countries, *(a.name for a in areas.values())}
                 if FACT_KINDS[fact].per == "country" else set(areas))
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise InputError(where, f"[complete] {fact} names unknown {', '.join(unknown)}")
        out[fact] = frozenset(value)
    return out


def adjective(pack: Pack, country: str) -> str:
    """'German' for Germany (pack `adjective`), so plans say "German ground units" as the rules text does;
    a country the pack gives no adjective keeps its name."""
    info = pack.countries.get(country)
    if info is not None and info.adjective:
        return info.adjective
    table = pack.extra.get("adjectives", {})  # an `[adjectives]` table: Country = "Adjective"
    found = table.get(country) if isinstance(table, dict) else None
    return str(found) if found else country


def pack_source(pack: Pack) -> str:
    """Where a pack was read from, for the plan header: "built-in" or its folder."""
    try:
        if pack.path.resolve().parent == PACKS_DIR:
            return "built-in"
    except OSError:
        pass
    return str(pack.path)
def areas_covering(pack: Pack, area_id: str | None) -> list[AreaInfo]:
    """The areas whose marker moves a hex of `area_id`: that area and every area with `hexes_of` it."""
    if area_id is None or area_id not in pack.areas:
        return []
    return [pack.areas[area_id], *(a for a in pack.areas.values() if a.hexes_of == area_id)]


def hex_label(pack: Pack, hex_id: str) -> str:
    """'Paris (w3516)' when the pack names the hex, else the bare id: plans name places as players do."""
    info = pack.hexes.get(hex_id)
    return f"{info.name} ({hex_id})" if info and info.name else hex_id
