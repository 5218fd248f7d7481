"""Rules of Polemos: Obstinate and Bloody Battle, as phases a neutral referee adjudicates.

Each game turn is the book's sequence: Tempo bidding (sealed), then the Tempo side's command,
bombardment, moves and contact phases, then the other side's, then the morale phase. The
game opens with a muster phase, where generated armies are rolled and the first Tempo points
are drawn. Each army is one player, named after the army (e.g. dutch, imperial, bavarian).

State (plain JSON data): turn, step (the open phase), sides, armies, generals, divisions,
brigades, bases, engagements, tempo, this turn's allocations, spending, moved brigades and
broken bases, every army's standing orders, and the settings and referee data it was set up with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.polemos_obb import bombardment, combat, command, contact_orders, morale, pace, tempo
from games.polemos_obb.armies import (
    generate_armies,
    load_generators,
    load_scenario,
    order_of_battle,
    roll_random_grades,
    scenario_roles,
)
from games.polemos_obb.model import (
    STEP_TITLES,
    TURN_STEPS,
    State,
    acting_side,
    army_of_base,
    army_of_player,
    army_order,
    is_in_play,
    live_pairs,
    players_of,
    step_kind,
)
from games.polemos_obb.options import LATER_DEFAULTS, OPTIONS, game_tables, read_options, setting
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.schemas import DEFAULTS, EXAMPLES, schemas
from games.polemos_obb.supplies import outstanding
from games.polemos_obb.table import deploy, new_table, on_table
from games.polemos_obb.views import secrets, view
from referee.kit import Dice, Event, GameDataError, PhaseSpec, Problem, thaw

__all__ = ["OPTIONS", "check", "phase", "resolve", "roles", "secrets", "setup", "validate", "view"]
SCHEMA_VERSION = 1


def roles(scenario: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the scenario's roles: one per army, named after it."""
    _, overlays, _ = read_options(options)
    return scenario_roles(load_scenario(scenario, overlays))


def setup(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> State:
    """Return the state before the muster phase, or raise GameDataError naming what is missing."""
    settings, overlays, ignored = read_options(options)
    data = load_scenario(scenario, overlays)
    expected = scenario_roles(data)
    if sorted(players) != sorted(expected):
        raise GameDataError(
            f"scenario {scenario} is played by {', '.join(expected)} (one player per army), "
            f"not by {', '.join(players)}",
            hints=("name each player after the army they command",),
        )
    forces = order_of_battle(data)
    cmf = overlays.get("army_morale", {}).get("cmf", {})
    strays = sorted(set(cmf) - set(forces["armies"]))
    if strays:
        raise GameDataError(f"option army_morale.cmf names {', '.join(strays)}, which are not armies of {scenario}")
    for army, value in cmf.items():
        forces["armies"][army]["cmf"] = value
    table = {}
    if {**LATER_DEFAULTS, **settings}["battlefield"] == "table":
        table = {"table": new_table(data, settings, f"scenario {scenario}")}
    return {
        "schema_version": SCHEMA_VERSION,
        "scenario": scenario,
        "title": data["title"],
        "turn": 1,
        "step": "muster",
        "over": False,
        "result": None,
        "sides": [{"id": s["id"], "title": s["title"], "armies": list(s["armies"])} for s in data["sides"]],
        **forces,
        "tempo": {"side": None, "by_turn": []},
        "allocations": {},
        "tp_spent": {},
        "moved": [],
        "broken_this_turn": [],
        "engagements": [],
        "next_engagement": 1,
        "standing": {},
        "last_auction": None,
        "config": settings,
        "overlays": overlays,
        "generators": load_generators(data, overlays),
        "ignored_options": ignored,
        **table,
    }


def phase(state: Mapping[str, Any]) -> PhaseSpec | None:
    """Return the open phase, or None once the battle is over."""
    if state["over"]:
        return None
    step = state["step"]
    kind = step_kind(step)
    if kind in ("muster", "morale"):
        active: tuple[str, ...] = ()
        title = f"turn {state['turn']}: {STEP_TITLES[kind]}"
    elif kind == "bid":
        active = players_of(state, army_order(state))
        title = f"turn {state['turn']}: {STEP_TITLES[kind]}"
    else:
        side = acting_side(state)
        armies = [a for a in army_order(state) if state["armies"][a]["side"] == side]
        if pace.skips_idle(state) and kind in pace.AHEAD:
            armies = [a for a in armies if pace.can_order(state, a, kind) and pace.ahead(state, a, kind) is None]
        active = players_of(state, armies)
        which = "holding the Tempo" if step.startswith("tempo-") else "without the Tempo"
        side_title = next(s["title"] for s in state["sides"] if s["id"] == side)
        title = f"turn {state['turn']}: {side_title} ({which}): {STEP_TITLES[kind]}"
        if kind == "bombardment" and "bombardment" not in game_tables(state):
            title += " (no bombardment table yet: send no fire orders until the game's referee supplies it)"
    return PhaseSpec(
        turn=state["turn"],
        name=step,
        active=active,
        sealed=True,
        schema=schemas(
            setting(state, "defenders_support"),
            pace.skips_idle(state),
            setting(state, "guns_move_with_column"),
            on_table(state),
        )[kind],
        default_orders=DEFAULTS[kind],
        example=EXAMPLES[kind],
        title=title,
    )


def validate(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with a player's orders for the open phase (empty: accepted)."""
    army = army_of_player(state, player)
    if army is None:
        return [Problem("illegal.player", "player", f"{player} commands no army in this battle")]
    kind = step_kind(state["step"])
    problems = _standing_problems(state, army, orders.get("standing"))
    if kind == "bid":
        problems += tempo.bid_problems(state, army, orders)
    elif kind == "command":
        problems += command.command_problems(state, army, orders)
        if orders.get("later") and not pace.skips_idle(state):
            problems.append(
                Problem(
                    "illegal.later",
                    "orders.later",
                    "this game was begun before orders could be sent ahead (option pace is every-phase): "
                    "send each step's orders when it opens",
                )
            )
    elif kind == "bombardment":
        problems += bombardment.fire_problems(state, army, orders)
    elif kind == "moves":
        problems += command.priced_moves(state, army, orders)[1]
    elif kind == "contact":
        problems += contact_orders.contact_problems(state, army, orders)
    return problems


def _standing_problems(state: Mapping[str, Any], army: str, standing: Any) -> list[Problem]:
    if not standing:
        return []
    problems = []
    for index, entry in enumerate(standing.get("bases", [])):
        base = entry["base"]
        if base not in state["bases"] or state["divisions"][state["bases"][base]["division"]]["army"] != army:
            problems.append(
                Problem("illegal.standing.base", f"orders.standing.bases[{index}].base", f"{base!r} is not your base")
            )
    if standing.get("support") and not setting(state, "defenders_support"):
        problems.append(
            Problem(
                "illegal.standing.support",
                "orders.standing.support",
                "this game was begun before defenders could claim support (option defenders_support is false)",
            )
        )
    for index, entry in enumerate(standing.get("support", [])):
        path = f"orders.standing.support[{index}]"
        base = entry["base"]
        if base not in state["bases"] or army_of_base(state, base) != army:
            problems.append(Problem("illegal.standing.base", f"{path}.base", f"{base!r} is not your base"))
            continue
        for supporter in entry["by"]:
            if (
                supporter == base
                or supporter not in state["bases"]
                or state["bases"][supporter]["division"] != state["bases"][base]["division"]
            ):
                problems.append(
                    Problem(
                        "illegal.support.by",
                        f"{path}.by",
                        f"{supporter!r} cannot support {base}: a supporter is another base of its division",
                    )
                )
    return problems


def resolve(state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice) -> tuple[State, list[Event]]:
    """Adjudicate the open phase, then (option pace) every step after it in which nobody can give an order."""
    new = thaw(state)
    r = Resolution(new, dice, game_tables(new))
    by_army: dict[str, Any] = {}
    for player, given in orders.items():
        army = army_of_player(new, player)
        if army is not None:
            by_army[army] = thaw(given)
    for army in army_order(new):
        if army in by_army and by_army[army].get("standing"):
            _set_standing(r, army, by_army[army]["standing"])
    _resolve_step(r, by_army)
    if pace.skips_idle(new):
        _run_idle_steps(r)
    return new, r.events


def _resolve_step(r: Resolution, by_army: dict[str, Any]) -> None:
    """Adjudicate the step the state is at, with these orders (and those sent ahead for it); move on."""
    new = r.state
    step = new["step"]
    kind = step_kind(step)
    if kind in pace.AHEAD and "later" in new:
        sent = {a: o for a in pace.acting_armies(new) if (o := pace.ahead(new, a, kind)) is not None}
        by_army = {**sent, **by_army}
        for army in sent:
            new["later"][army]["orders"].pop(kind)
    armies = [a for a in army_order(new) if a in by_army and is_in_play(new, a)]
    if kind == "muster":
        _muster(r)
    elif kind == "bid":
        new["last_auction"] = None
        tempo.resolve_bids(r, {a: by_army[a]["bid"] for a in armies})
        new["last_auction"] = next(e.data for e in reversed(r.events) if e.kind == "tempo.auction")
    elif kind == "command":
        for army in armies:
            command.resolve_command(r, army, by_army[army])
            if by_army[army].get("later"):
                _keep_ahead(r, army, by_army[army]["later"])
    elif kind == "bombardment":
        fired = [a for a in armies if by_army[a].get("fire")]
        for army in fired:
            bombardment.resolve_fire(r, army, by_army[army])
        if not fired:
            r.say("bombardment.none", "No guns fire.")
    elif kind == "moves":
        for army in armies:
            command.resolve_moves(r, army, by_army[army])
    elif kind == "contact":
        side = acting_side(new)
        assert side is not None
        combat.resolve_contact(r, {a: by_army[a] for a in armies}, side)
        if not any(e.kind == "combat.encounter" for e in r.events):
            r.say("combat.none", "No combat this phase.")
    else:
        new.pop("later", None)
        morale.resolve_morale(r)
    if kind != "morale":
        new["step"] = _next_step(step)


def _run_idle_steps(r: Resolution) -> None:
    """Adjudicate at once each following step in which no army waits to give orders (option pace)."""
    state = r.state
    while not state["over"] and step_kind(state["step"]) in (*pace.AHEAD, "morale"):
        kind = step_kind(state["step"])
        if kind != "morale":
            if _waiting(r, kind):
                return
            side = acting_side(state)
            title = next(s["title"] for s in state["sides"] if s["id"] == side)
            sent = [a for a in pace.acting_armies(state) if pace.ahead(state, a, kind) is not None]
            why = "its orders were sent ahead" if sent else pace.why_idle(state, kind)
            r.say(
                "pace.at-once",
                f"Turn {state['turn']}, {title}: the {kind} step is adjudicated at once ({why}).",
                {"turn": state["turn"], "step": state["step"], "why": why},
            )
        _resolve_step(r, {})


def _waiting(r: Resolution, kind: str) -> list[str]:
    """Return the acting armies whose orders a step of `kind` awaits; drop orders sent ahead that no longer fit."""
    state = r.state
    waiting = []
    for army in pace.acting_armies(state):
        sent = pace.ahead(state, army, kind)
        if sent is not None:
            problems = _step_problems(state, army, kind, sent)
            if not problems:
                continue
            state["later"][army]["orders"].pop(kind)
            r.say(
                "pace.ahead-refused",
                f"Your orders sent ahead for the {kind} step no longer fit, so this step waits for your orders: "
                + "; ".join(p.message for p in problems),
                {"army": army, "step": state["step"], "problems": [p.message for p in problems]},
                visible_to=(state["armies"][army]["player"],),
            )
        if pace.can_order(state, army, kind):
            waiting.append(army)
    return waiting


def _step_problems(state: Mapping[str, Any], army: str, kind: str, orders: Mapping[str, Any]) -> list[Problem]:
    if kind == "bombardment":
        return bombardment.fire_problems(state, army, orders)
    if kind == "moves":
        return command.priced_moves(state, army, orders)[1]
    return contact_orders.contact_problems(state, army, orders)


def _keep_ahead(r: Resolution, army: str, later: Mapping[str, Any]) -> None:
    """Keep an army's orders for the rest of its half-turn; its player alone hears of them."""
    state = r.state
    kept = {
        kind: {key: later[key] for key in keys if key in later}
        for kind, keys in pace.AHEAD_KEYS.items()
        if any(key in later for key in keys)
    }
    state.setdefault("later", {})[army] = {
        "turn": state["turn"],
        "half": state["step"].split("-", 1)[0],
        "orders": kept,
    }
    r.say(
        "pace.ahead-kept",
        f"Your orders for the rest of this half-turn are kept, each applied when its step comes: {', '.join(kept)}.",
        {"army": army, "steps": list(kept)},
        visible_to=(state["armies"][army]["player"],),
    )


def _next_step(step: str) -> str:
    if step == "muster":
        return "bid"
    return TURN_STEPS[TURN_STEPS.index(step) + 1]


def _muster(r: Resolution) -> None:
    state = r.state
    roll_random_grades(r)
    generate_armies(r)
    if on_table(state):
        placed = deploy(state)
        table = state["table"]
        r.say(
            "table.deployed",
            f"The armies are deployed on the referee's table ({table['width_mm']:g} x {table['depth_mm']:g} mm, "
            f"1BW = {table['bw_mm']:g} mm): {len(placed)} divisions placed; every view gives each base's position.",
            {"divisions": placed, "bw_mm": table["bw_mm"]},
        )
    missing = outstanding(state)
    stops = [p["title"] for p in missing if p["when"] in ("now", "later")]
    rebuilt = [p["title"] for p in missing if p["when"] == "default"]
    parts = []
    if stops:
        parts.append(
            f"Not in the rulebook file and not yet supplied by this game's referee: {_listed(stops)}. "
            "The game's referee supplies each when the game needs it; until then an order that needs one "
            "is refused, naming it."
        )
    if rebuilt:
        names = _listed(rebuilt)
        parts.append(f"Reconstructed from the book's combat example, in use until the referee supplies them: {names}.")
    if parts:
        r.say("game.missing", " ".join(parts), {"missing": missing})
    if state["ignored_options"]:
        r.say(
            "game.ignored-options",
            f"Options this game does not know were ignored: {', '.join(state['ignored_options'])}.",
            {"ignored": state["ignored_options"]},
        )
    tempo.roll_income(r, 1)


def _listed(items: list[str]) -> str:
    """Return items as a sentence lists them: "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _set_standing(r: Resolution, army: str, standing: Mapping[str, Any]) -> None:
    """Keep an army's standing orders; only its own player hears of them until they are used."""
    record: dict[str, Any] = {
        "respond": standing.get("respond"),
        "bases": {entry["base"]: entry["respond"] for entry in standing.get("bases", [])},
    }
    if standing.get("support"):
        record["support"] = {entry["base"]: list(entry["by"]) for entry in standing["support"]}
    r.state["standing"][army] = record
    player = r.state["armies"][army]["player"]
    r.say(
        "standing.orders",
        f"Your standing orders now: defending bases {record['respond'] or r.state['config']['default_response']}"
        + "".join(f", {b} {c}" for b, c in record["bases"].items())
        + " after 'no effect'."
        + "".join(f" {b} supported by {', '.join(by)} when attacked." for b, by in record.get("support", {}).items()),
        {"army": army, "standing": record},
        visible_to=(player,),
    )


def check(state: Mapping[str, Any]) -> list[str]:
    """Return the broken invariants of a state (for tests)."""
    problems = []
    if state["turn"] < 1:
        problems.append("turn below 1")
    if state["step"] not in ("muster", *TURN_STEPS):
        problems.append(f"unknown step {state['step']}")
    for army, record in state["armies"].items():
        if record["tp"] < 0:
            problems.append(f"{army} holds {record['tp']} TP")
    seen: set[str] = set()
    for engagement in state["engagements"]:
        for pair in engagement["pairs"]:
            for base in pair["bases"]:
                if base not in state["bases"]:
                    problems.append(f"{engagement['id']} pairs unknown base {base}")
        live = [b for p in live_pairs(state, engagement) for b in p["bases"]]
        twice = seen & set(live)
        if twice:
            problems.append(f"bases {sorted(twice)} are in two pairs")
        seen |= set(live)
        if any(state["divisions"][d]["spent"] for d in engagement["divisions"]):
            problems.append(f"{engagement['id']} involves a spent division")
    for general, spent in state["tp_spent"].items():
        army = state["generals"][general]["army"]
        if spent > state["allocations"].get(army, {}).get(general, 0):
            problems.append(f"{general} spent more TP than he was given")
    return problems
