"""Every message of protocol v1 as msgspec Structs.

Each message is one JSON object in one WebSocket text frame, tagged by its ``type``.

- Client → server messages (:data:`ClientMessage`) are *requests*: each carries a client-chosen
  ``id`` and gets exactly one answer carrying the same ``id``: its result message or an ``error``.
  They are decoded strictly: unknown fields, missing required fields and wrong JSON types are
  rejected with ``invalid_field``.
- Server → client messages (:data:`ServerMessage`) are answers (with ``id``) and pushes (without):
  ``snapshot``, ``event``, ``your_turn``. Within v1 they may gain fields; clients must ignore fields
  they do not know (the decoder here does).

This module imports nothing of the server: third-party Python clients may use it as is.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from .text import NAME_PATTERN

# ------------------------------------------------------------------------------ shared types

RequestId = Annotated[str, Meta(max_length=64)] | int
SeatNo = Annotated[int, Meta(ge=0, le=3, description="a seat, 0..3 (RULES.md R2.1)")]
TableId = Annotated[str, Meta(min_length=1, max_length=64, description="a table id")]
Card = Annotated[str, Meta(max_length=3, description="a card code (RULES.md R1.2), e.g. `H10`")]
Cards = Annotated[list[Card], Meta(max_length=24)]
Name = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=32,
        pattern=NAME_PATTERN,
        description="a display name, 1..32 characters, not only spaces, no control characters "
        "(C0, DEL, C1, line separators, bidirectional controls: protocol/text.py)",
    ),
]
TableName = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=64,
        pattern=NAME_PATTERN,
        description="a table name, 1..64 characters, the same characters as a player name",
    ),
]
Level = Annotated[str, Meta(min_length=1, max_length=32, description="an AI level, e.g. `random`")]
ContractName = Literal["pass", "prise", "garde", "garde_sans", "garde_contre"]
TableStateName = Literal["waiting", "playing", "finished", "closed"]
SeatKind = Literal["empty", "human", "ai"]
Identity = Annotated[
    Literal["guest", "registered", "bot"] | None,
    Meta(description="a human seat: a guest (no account), a registered player or a bot account"),
]
Phase = Literal["bidding", "discard", "chelem", "play", "over"]


class _Request(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, tag_field="type"):
    id: Annotated[
        RequestId,
        Meta(description="chosen by the client (string up to 64 chars, or integer); echoed"),
    ]


class _Push(msgspec.Struct, kw_only=True, tag_field="type"):
    pass


# ------------------------------------------------------------------------------ client → server


class Hello(_Request, tag="hello", kw_only=True):
    """First message on a connection. Answered by `welcome` (or `error`)."""

    version: Annotated[int, Meta(description="the protocol version the client speaks (1)")]
    name: Name
    client: Annotated[str, Meta(max_length=64)] | None = None
    token: (
        Annotated[
            str,
            Meta(max_length=128, description="optional: resume this seat as part of the handshake"),
        ]
        | None
    ) = None
    v: (
        Annotated[int, Meta(ge=0, description="with `token`: the last table version seen")] | None
    ) = None
    admin: (
        Annotated[
            str,
            Meta(
                max_length=256,
                description="optional: the server's admin token (may close any table)",
            ),
        ]
        | None
    ) = None
    key: (
        Annotated[
            str,
            Meta(
                max_length=128,
                description="optional: a player key (from `account`): the connection is that "
                "player, under its registered name",
            ),
        ]
        | None
    ) = None


Password = Annotated[str, Meta(min_length=1, max_length=256)]
Cursor = Annotated[str, Meta(max_length=256, description="`next` of the previous page")]
PageLimit = Annotated[int, Meta(ge=1, le=100)]


class Register(_Request, tag="register", kw_only=True):
    """Register an account under `name` (unique, compared case-insensitively after Unicode
    NFKC). Answered by `account` (with the player key); the connection is then that player."""

    name: Name
    password: Annotated[
        Password | None, Meta(description="optional (8..256 characters): allows `login`")
    ] = None
    bot: Annotated[bool | None, Meta(description="a bot account, shown as a bot everywhere")] = None


class Login(_Request, tag="login", kw_only=True):
    """A new player key for an account with a password (another device). Answered by
    `account`; the connection is then that player."""

    name: Name
    password: Password


class Logout(_Request, tag="logout", kw_only=True):
    """Revoke a player key (default: the one this connection logged in with). Answered by
    `ok`; the connection is then a guest."""

    key: Annotated[str, Meta(max_length=128)] | None = None


class RotateKey(_Request, tag="rotate_key", kw_only=True):
    """Replace this connection's player key by a new one. Answered by `account`."""


class Player(_Request, tag="player", kw_only=True):
    """A player's profile. Answered by `player`."""

    name: Name
    kind: Annotated[
        Literal["player", "guest", "ai"] | None,
        Meta(description="an account (default), a guest name, or an AI level"),
    ] = None


class History(_Request, tag="history", kw_only=True):
    """A player's finished deals, newest first. Answered by `history`."""

    name: Annotated[Name | None, Meta(description="default: this connection's player")] = None
    kind: Literal["player", "guest", "ai"] | None = None
    limit: Annotated[PageLimit | None, Meta(description="default 20")] = None
    cursor: Cursor | None = None


class Leaderboard(_Request, tag="leaderboard", kw_only=True):
    """The players ranked. Answered by `leaderboard`."""

    by: Annotated[Literal["rating", "total", "mean"] | None, Meta(description="default rating")] = (
        None
    )
    min_deals: Annotated[
        Annotated[int, Meta(ge=0, le=1_000_000)] | None,
        Meta(description="default 20 by rating (provisional ratings left out), 1 otherwise"),
    ] = None
    limit: Annotated[PageLimit | None, Meta(description="default 50")] = None
    cursor: Cursor | None = None


class ListTables(_Request, tag="list_tables", kw_only=True):
    """List the public open tables, a page at a time. Answered by `tables`."""

    limit: Annotated[int, Meta(ge=1, le=100, description="tables per page (default 50)")] | None = (
        None
    )
    cursor: (
        Annotated[
            str,
            Meta(max_length=100, description="`next` of the previous page; null: the first page"),
        ]
        | None
    ) = None


class CreateTable(_Request, tag="create_table", kw_only=True):
    """Create a table (the connection does not sit down: send `join`). Answered by `table_created`.

    Give at most one of `deals` and `target_score`; with neither, the table plays 4 deals."""

    name: Annotated[TableName, Meta(description="default: <name>'s table")] | None = None
    public: Annotated[bool | None, Meta(description="default true")] = None
    deals: Annotated[int, Meta(ge=1, le=1000)] | None = None
    target_score: Annotated[int, Meta(ge=1, le=100000)] | None = None
    ai: Annotated[
        Level | Annotated[list[Level], Meta(min_length=4, max_length=4)] | None,
        Meta(
            description="AI level for every empty seat, or a list of 4 levels indexed by seat "
            "(default normal)"
        ),
    ] = None
    turn_timer: (
        Annotated[
            float, Meta(gt=0, le=3600, description="seconds a human has to act; null: no timer")
        ]
        | None
    ) = None
    think_delay: (
        Annotated[
            float,
            Meta(ge=0, le=30, description="seconds an AI waits before acting (server default)"),
        ]
        | None
    ) = None
    deal_pause: (
        Annotated[
            float, Meta(ge=0, le=60, description="seconds between two deals (server default)")
        ]
        | None
    ) = None


class Join(_Request, tag="join", kw_only=True):
    """Sit at a table. Answered by `joined` (with the seat token), then a `snapshot`."""

    table: TableId
    seat: Annotated[SeatNo | None, Meta(description="null: any free seat")] = None


class Watch(_Request, tag="watch", kw_only=True):
    """Follow a table as a spectator. Answered by `watching`, then a `snapshot`."""

    table: TableId


class Unwatch(_Request, tag="unwatch", kw_only=True):
    """Stop following a table. Answered by `ok`."""

    table: TableId


class Leave(_Request, tag="leave", kw_only=True):
    """Give up this connection's seat (the token is revoked; an AI plays it). Answered by `ok`."""

    table: TableId


class Start(_Request, tag="start", kw_only=True):
    """Start a waiting table now; empty seats become AI. Answered by `ok`."""

    table: TableId


class Restart(_Request, tag="restart", kw_only=True):
    """Play a new series at a finished table (same seats, scores reset). Answered by `ok`."""

    table: TableId


class Close(_Request, tag="close", kw_only=True):
    """Close a table: a waiting or finished one (its creator or a seated player), one in play
    (its creator or an admin). Answered by `ok`."""

    table: TableId


class Resume(_Request, tag="resume", kw_only=True):
    """Take back a seat with its token. Answered by `joined`, then the missed events or a
    `snapshot`."""

    token: Annotated[str, Meta(max_length=128)]
    v: (
        Annotated[int, Meta(ge=0, description="last table version seen; null: send a snapshot")]
        | None
    ) = None


class _Action(_Request, kw_only=True):
    table: TableId
    seat: Annotated[
        SeatNo | None, Meta(description="optional: must be the connection's seat if given")
    ] = None


class Bid(_Action, tag="bid", kw_only=True):
    """Bid or pass (R4). Answered by `ok`."""

    contract: ContractName


class Discard(_Action, tag="discard", kw_only=True):
    """The taker's six discarded cards (R5). Answered by `ok`."""

    cards: Cards


class Chelem(_Action, tag="chelem", kw_only=True):
    """The taker's chelem decision (R6.1). Answered by `ok`."""

    announce: bool


class Poignee(_Action, tag="poignee", kw_only=True):
    """Show a poignée before the first card (R6.3). Answered by `ok`."""

    cards: Cards


class Play(_Action, tag="play", kw_only=True):
    """Play a card (R7). Answered by `ok`."""

    card: Card


class Ping(_Request, tag="ping", kw_only=True):
    """Answered by `pong` (an application-level round trip)."""


class GetDeal(_Request, tag="deal", kw_only=True):
    """Ask for the record of a finished deal of a table. Answered by `deal` (or
    `no_such_deal`): any finished deal of a public table; a private table's deals only from a
    connection holding a seat there."""

    table: TableId
    deal_no: Annotated[int, Meta(ge=1, description="the deal's `deal_no` at that table")]


ClientMessage = (
    Hello
    | ListTables
    | CreateTable
    | Join
    | Watch
    | Unwatch
    | Leave
    | Start
    | Restart
    | Close
    | Resume
    | Bid
    | Discard
    | Chelem
    | Poignee
    | Play
    | Ping
    | GetDeal
    | Register
    | Login
    | Logout
    | RotateKey
    | Player
    | History
    | Leaderboard
)
ACTION_TYPES: tuple[type[_Action], ...] = (Bid, Discard, Chelem, Poignee, Play)
CLIENT_TYPES: dict[str, type[msgspec.Struct]] = {
    c.__struct_config__.tag: c  # type: ignore[misc]
    for c in (
        Hello,
        ListTables,
        CreateTable,
        Join,
        Watch,
        Unwatch,
        Leave,
        Start,
        Restart,
        Close,
        Resume,
        Bid,
        Discard,
        Chelem,
        Poignee,
        Play,
        Ping,
        GetDeal,
        Register,
        Login,
        Logout,
        RotateKey,
        Player,
        History,
        Leaderboard,
    )
}

# ------------------------------------------------------------------------------ views


class SeatInfo(msgspec.Struct, kw_only=True):
    """Who sits at a seat."""

    seat: SeatNo
    kind: SeatKind
    name: str | None = None
    connected: bool = False
    ai: Annotated[
        str | None,
        Meta(
            description="level of the AI playing this seat (AI seat, or stand-in for an absent human)"
        ),
    ] = None
    identity: Identity = None


class TableInfo(msgspec.Struct, kw_only=True):
    """A table's public description (lobby list, snapshots)."""

    table: str
    name: str
    public: bool
    state: TableStateName
    seats: list[SeatInfo]
    deals: int | None = None
    target_score: int | None = None
    deal_no: Annotated[int, Meta(description="deals started at this table so far")] = 0
    scored: Annotated[
        int,
        Meta(description="scored deals of this series: what `deals` counts (annulled ones do not)"),
    ] = 0
    series: Annotated[int, Meta(description="1, then +1 at each restart")] = 1
    scores: Annotated[list[float], Meta(description="cumulative scores of this series, per seat")]
    turn_timer: float | None = None
    think_delay: float = 0.0
    deal_pause: float = 0.0
    spectators: int = 0
    url: Annotated[
        str | None,
        Meta(
            description="several worker processes: the WebSocket URL of the worker that holds "
            "the table (in `tables` and `table_created`)"
        ),
    ] = None


class PoigneeOption(msgspec.Struct, kw_only=True):
    level: Literal["single", "double", "triple"]
    size: int
    bonus: int
    default: Annotated[list[Card], Meta(description="a valid set to show, sorted")]
    eligible: Annotated[list[Card], Meta(description="every card a set at this level may use")]


class DiscardRule(msgspec.Struct, kw_only=True):
    count: int
    required: Annotated[list[Card], Meta(description="cards the discard must contain")]
    choices: Annotated[list[Card], Meta(description="the rest of the discard comes from these")]


class LegalActions(msgspec.Struct, kw_only=True):
    """What the seat to act may do now. Exactly one group is non-empty (plays may come with
    poignée options)."""

    seat: SeatNo
    phase: Phase
    bids: Annotated[list[ContractName], Meta(description="bidding: allowed `bid` contracts")] = []
    discard: DiscardRule | None = None
    chelem: Annotated[bool, Meta(description="a `chelem` decision is due")] = False
    poignees: list[PoigneeOption] = []
    plays: Annotated[list[Card], Meta(description="play: cards that may be played")] = []


class SpokenBid(msgspec.Struct, kw_only=True):
    seat: SeatNo
    contract: ContractName


class ShownPoignee(msgspec.Struct, kw_only=True):
    seat: SeatNo
    level: Literal["single", "double", "triple"]
    cards: list[Card]


class Trick(msgspec.Struct, kw_only=True):
    leader: SeatNo
    cards: Annotated[list[Card], Meta(description="in play order, starting with the leader")]
    winner: SeatNo | None = None


class DealResult(msgspec.Struct, kw_only=True):
    """The `result` of an `atout-deal/1` record (spec/deal-record.md)."""

    status: Literal["played", "annulled"]
    scores: list[float]
    reason: Literal["petit_sec", "all_passed"] | None = None
    taker: SeatNo | None = None
    contract: ContractName | None = None
    multiplier: int | None = None
    chelem_announced: bool | None = None
    oudlers: int | None = None
    target: float | None = None
    taker_points: float | None = None
    won: bool | None = None
    base: float | None = None
    petit_au_bout: float | None = None
    poignee: float | None = None
    chelem: float | None = None
    per_defender: float | None = None


class RecordAction(msgspec.Struct, kw_only=True):
    """One action of a record: `type` is bid, discard, chelem, poignee or play."""

    type: Literal["bid", "discard", "chelem", "poignee", "play"]
    seat: SeatNo
    contract: ContractName | None = None
    cards: list[Card] | None = None
    announce: bool | None = None
    card: Card | None = None


class DealRecord(msgspec.Struct, kw_only=True):
    """A complete `atout-deal/1` record (spec/deal-record.md)."""

    format: str
    dealer: SeatNo
    hands: list[list[Card]]
    chien: list[Card]
    actions: list[RecordAction]
    result: DealResult | None = None
    meta: dict[str, Any] | None = None


class DealView(msgspec.Struct, kw_only=True):
    """A deal as one seat (or a spectator, `seat` null) may see it."""

    seat: SeatNo | None
    phase: Phase
    dealer: SeatNo
    turn: SeatNo | None
    hand: Annotated[list[Card] | None, Meta(description="own cards; null for spectators")]
    hand_sizes: list[int]
    bids: list[SpokenBid]
    taker: SeatNo | None
    contract: ContractName | None
    chien: Annotated[list[Card] | None, Meta(description="when shown (R5.1) or at the end")]
    discard: Annotated[
        list[Card] | None, Meta(description="the taker's own discard, or at the end")
    ]
    discard_trumps: Annotated[list[Card], Meta(description="trumps in the discard (R5.4)")]
    chelem_announced: bool | None
    poignees: list[ShownPoignee]
    tricks: Annotated[list[Trick], Meta(description="finished tricks")]
    trick: Annotated[Trick | None, Meta(description="the trick in progress (play phase)")]
    legal: Annotated[LegalActions | None, Meta(description="for the seat to act only")]
    result: DealResult | None
    record: Annotated[DealRecord | None, Meta(description="the full record once the deal is over")]


# ------------------------------------------------------------------------------ table events


class SeatEvent(_Push, tag="seat", kw_only=True):
    """A seat changed hands or connectivity."""

    seat: SeatNo
    kind: SeatKind
    name: str | None = None
    connected: bool = False
    ai: str | None = None
    reason: Annotated[
        Literal["timeouts"] | None,
        Meta(description="why a seat was released: its player let the AI play too many turns"),
    ] = None
    identity: Identity = None


class TableStateEvent(_Push, tag="table_state", kw_only=True):
    """The table changed state (started, finished, restarted, closed)."""

    state: TableStateName
    series: int = 1
    deal_no: int = 0
    scores: list[float]
    reason: str | None = None


class DealStartEvent(_Push, tag="deal_start", kw_only=True):
    """A new deal: the dealer and the recipient's own 18 cards (null for spectators)."""

    deal_no: int
    dealer: SeatNo
    hand: list[Card] | None


class BidEvent(_Push, tag="bid", kw_only=True):
    seat: SeatNo
    contract: ContractName


class ContractEvent(_Push, tag="contract", kw_only=True):
    """The bidding ended with a taker."""

    taker: SeatNo
    contract: ContractName


class ChienEvent(_Push, tag="chien", kw_only=True):
    """The chien, turned face up after a prise or garde (R5.1)."""

    cards: list[Card]


class DiscardEvent(_Push, tag="discard", kw_only=True):
    """The taker discarded. Everyone sees the discarded trumps (R5.4); only the taker sees
    `cards`."""

    seat: SeatNo
    trumps: list[Card]
    cards: list[Card] | None = None


class ChelemEvent(_Push, tag="chelem", kw_only=True):
    """The taker's chelem decision; `leader` leads the first trick (R6.2)."""

    seat: SeatNo
    announce: bool
    leader: SeatNo


class PoigneeEvent(_Push, tag="poignee", kw_only=True):
    seat: SeatNo
    level: Literal["single", "double", "triple"]
    cards: list[Card]


class PlayEvent(_Push, tag="play", kw_only=True):
    seat: SeatNo
    card: Card


class TrickEvent(_Push, tag="trick", kw_only=True):
    """A trick is complete; `winner` leads the next one."""

    number: Annotated[int, Meta(ge=1, le=18)]
    leader: SeatNo
    cards: list[Card]
    winner: SeatNo


class DealOverEvent(_Push, tag="deal_over", kw_only=True):
    """The deal is over: its result and the complete record (every hand) revealed to all."""

    result: DealResult
    record: DealRecord


class ScoresEvent(_Push, tag="scores", kw_only=True):
    """Scores after a deal: this deal's and the cumulative ones of the series."""

    deal_no: int
    deal: list[float]
    total: list[float]


class RatingInfo(msgspec.Struct, kw_only=True):
    """A rating: `rating` is the conservative figure μ − 3σ (docs/RATINGS.md)."""

    rating: float
    mu: float
    sigma: float
    deals: Annotated[int, Meta(description="rated deals")]
    provisional: Annotated[bool, Meta(description="fewer than 20 rated deals")]
    delta: Annotated[float | None, Meta(description="change of `rating` by this deal")] = None


class ParEvent(_Push, tag="par", kw_only=True):
    """A scored deal's par: the reference bot's scores with the same cards, each seat's
    difference (its duplicate score), and the ratings after the deal. Comes after the deal's
    `scores`, once computed (possibly after the next deal has started)."""

    deal_no: int
    level: Annotated[str | None, Meta(description="the reference bot")] = None
    scores: Annotated[list[float], Meta(description="the real scores of the deal")]
    par: Annotated[list[float] | None, Meta(description="the reference bot's, per seat")] = None
    over_par: Annotated[list[float] | None, Meta(description="`scores` − `par`, per seat")] = None
    ratings: Annotated[
        list[RatingInfo | None], Meta(description="per seat, after the deal (null: not rated)")
    ] = []


class HiddenEvent(_Push, tag="hidden", kw_only=True):
    """An event the recipient may not see; it only fills its version number."""


TableEvent = (
    SeatEvent
    | TableStateEvent
    | DealStartEvent
    | BidEvent
    | ContractEvent
    | ChienEvent
    | DiscardEvent
    | ChelemEvent
    | PoigneeEvent
    | PlayEvent
    | TrickEvent
    | DealOverEvent
    | ScoresEvent
    | ParEvent
    | HiddenEvent
)

# ------------------------------------------------------------------------------ server → client


class Limits(msgspec.Struct, kw_only=True):
    max_frame_bytes: int
    rate_per_second: float
    burst: int
    grace_seconds: float
    turn_limit_seconds: Annotated[
        float | None,
        Meta(
            description="seconds a player has to act at a table without a turn timer before "
            "the AI plays for them; null: no limit"
        ),
    ] = None
    max_timeouts: Annotated[
        int,
        Meta(description="turns in a row played by the AI before the seat is released (0: never)"),
    ] = 0


class AiLevel(msgspec.Struct, kw_only=True):
    """An AI level a client may offer (``create_table.ai``), in display order."""

    level: str
    description: str


class ResumedSeat(msgspec.Struct, kw_only=True):
    table: str
    seat: SeatNo


class AccountInfo(msgspec.Struct, kw_only=True):
    name: Annotated[str, Meta(description="the registered name, as shown")]
    kind: Literal["registered", "bot"]
    since: Annotated[str, Meta(description="registration time, ISO 8601 UTC")]


class Account(_Push, tag="account", kw_only=True):
    """Answer to `register`, `login` and `rotate_key`: the account and a player key. Keep the
    key secret (it is the account): send it in `hello.key` to be this player again."""

    id: RequestId
    player: AccountInfo
    key: str


PlayerKind = Literal["registered", "bot", "ai", "guest"]


class TakerFigures(msgspec.Struct, kw_only=True):
    deals: int
    won: int
    success_rate: float | None = None
    mean_margin: Annotated[
        float | None, Meta(description="card points made minus the target, per deal")
    ] = None


class DefenderFigures(msgspec.Struct, kw_only=True):
    deals: int
    mean_score: float | None = None


class OverPar(msgspec.Struct, kw_only=True):
    deals: Annotated[int, Meta(description="deals with a par")]
    mean: Annotated[float | None, Meta(description="mean of score − par per deal")] = None


class Poignees(msgspec.Struct, kw_only=True):
    single: int = 0
    double: int = 0
    triple: int = 0


class Profile(msgspec.Struct, kw_only=True):
    name: str
    kind: PlayerKind
    since: str | None = None
    deals: Annotated[int, Meta(description="finished deals, annulled included")]
    played: Annotated[int, Meta(description="played (not annulled) deals")]
    first_deal: str | None = None
    last_deal: str | None = None
    taker: TakerFigures
    defender: DefenderFigures
    petits_au_bout: int
    poignees: Poignees
    chelems: int
    total: float
    mean: float | None = None
    over_par: OverPar
    rating: RatingInfo | None = None


class PlayerAnswer(_Push, tag="player", kw_only=True):
    """Answer to `player`."""

    id: RequestId
    player: Profile


class HistoryDeal(msgspec.Struct, kw_only=True):
    """One finished deal of a player's history (`deal` gives its whole record)."""

    table: str
    table_name: str
    public: bool
    deal_no: int
    seat: SeatNo
    finished_at: str
    status: Literal["played", "annulled"]
    contract: ContractName | None = None
    taker: SeatNo | None = None
    role: Literal["taker", "defender"] | None = None
    won: Annotated[bool | None, Meta(description="this player's side won the deal")] = None
    score: float
    par: float | None = None
    over_par: float | None = None
    rating: Annotated[
        dict[str, Any] | None, Meta(description="`mu`, `sigma`, `delta` after this deal")
    ] = None
    partial: Annotated[bool, Meta(description="the seat changed hands during the deal")] = False


class PlayerRef(msgspec.Struct, kw_only=True):
    name: str
    kind: PlayerKind


class HistoryAnswer(_Push, tag="history", kw_only=True):
    """Answer to `history`: a page of deals, newest first; `next` asks for the next page."""

    id: RequestId
    player: PlayerRef
    deals: list[HistoryDeal]
    next: str | None = None
    total: Annotated[int, Meta(description="deals of this history you may read")]


class LeaderboardRow(msgspec.Struct, kw_only=True):
    rank: int
    name: str
    kind: PlayerKind
    deals: int
    rating: RatingInfo | None = None
    total: float | None = None
    mean: float | None = None
    over_par: Annotated[float | None, Meta(description="mean score − par per deal")] = None


class LeaderboardAnswer(_Push, tag="leaderboard", kw_only=True):
    """Answer to `leaderboard`."""

    id: RequestId
    by: Literal["rating", "total", "mean"]
    min_deals: int
    rows: list[LeaderboardRow]
    next: str | None = None
    total: int


class Welcome(_Push, tag="welcome", kw_only=True):
    """Answer to `hello`: the version the server will speak on this connection."""

    id: RequestId
    version: int
    server: str
    session: Annotated[str, Meta(description="this connection's id (for logs and bug reports)")]
    subprotocol: str | None = None
    limits: Limits
    resumed: Annotated[
        ResumedSeat | None, Meta(description="the seat resumed by `hello.token`, if any")
    ] = None
    admin: Annotated[bool, Meta(description="`hello.admin` was the admin token")] = False
    ai_levels: Annotated[
        list[AiLevel],
        Meta(description="the AI levels to offer for `create_table.ai`, easiest first"),
    ] = []
    player: Annotated[
        AccountInfo | None, Meta(description="the player of `hello.key`; null: a guest")
    ] = None


class Tables(_Push, tag="tables", kw_only=True):
    """Answer to `list_tables`: one page of the public open tables."""

    id: RequestId
    tables: list[TableInfo]
    next: Annotated[
        str | None,
        Meta(description="send it as `cursor` for the next page; null: this is the last page"),
    ] = None
    total: Annotated[int, Meta(description="public open tables in all pages")] = 0


class TableCreated(_Push, tag="table_created", kw_only=True):
    """Answer to `create_table`."""

    id: RequestId
    table: TableInfo
    ai_levels: Annotated[
        list[AiLevel],
        Meta(description="the AI levels to offer for `create_table.ai`, easiest first"),
    ] = []


class Joined(_Push, tag="joined", kw_only=True):
    """Answer to `join` and `resume`: the seat and its secret token (keep it to resume)."""

    id: RequestId
    table: str
    seat: SeatNo
    token: str


class Watching(_Push, tag="watching", kw_only=True):
    """Answer to `watch`."""

    id: RequestId
    table: str


class Ok(_Push, tag="ok", kw_only=True):
    """Answer to a request that has no other result (actions, leave, start, ...)."""

    id: RequestId


class Pong(_Push, tag="pong", kw_only=True):
    """Answer to `ping`."""

    id: RequestId


class DealAnswer(_Push, tag="deal", kw_only=True):
    """Answer to `deal`: the deal's complete `atout-deal/1` record, with its `result`."""

    id: RequestId
    table: str
    deal_no: int
    record: Annotated[
        dict[str, Any],
        Meta(description="the atout-deal/1 record (docs/deal-record.md) with `result` and `meta`"),
    ]


class Error(_Push, tag="error", kw_only=True):
    """A request failed (and had no effect), or a frame could not be read (`id` null)."""

    id: RequestId | None
    code: Annotated[str, Meta(description="stable machine-readable code (protocol/errors.py)")]
    message: str
    rule: Annotated[str | None, Meta(description="for illegal_action: the RULES.md rule")] = None
    details: dict[str, Any] | None = None


class Snapshot(_Push, tag="snapshot", kw_only=True):
    """The whole table as the recipient may see it, as of version `v`. Events that follow
    carry `v + 1`, `v + 2`, ..."""

    table: str
    v: int
    seat: Annotated[SeatNo | None, Meta(description="the recipient's seat; null: spectator")]
    info: TableInfo
    deal: Annotated[DealView | None, Meta(description="current (or last finished) deal")]


class Event(_Push, tag="event", kw_only=True):
    """One table event, numbered `v` (per table, +1 per event, no gaps)."""

    table: str
    v: int
    turn: Annotated[SeatNo | None, Meta(description="seat to act after this event")]
    event: TableEvent


class YourTurn(_Push, tag="your_turn", kw_only=True):
    """The recipient's seat must act: exactly one of `legal`'s options is expected."""

    table: str
    v: Annotated[int, Meta(description="table version this prompt is valid at")]
    seat: SeatNo
    legal: LegalActions
    hand: Annotated[list[Card], Meta(description="the seat's cards now (as in its view)")] = []
    timer: Annotated[
        float | None,
        Meta(
            description="seconds before the AI plays for this seat: the table's turn timer, or "
            "the server's turn limit; null: none"
        ),
    ] = None


ServerMessage = (
    Welcome
    | Tables
    | TableCreated
    | Joined
    | Watching
    | Ok
    | Pong
    | DealAnswer
    | Error
    | Snapshot
    | Event
    | YourTurn
    | Account
    | PlayerAnswer
    | HistoryAnswer
    | LeaderboardAnswer
)

# ------------------------------------------------------------------------------ codecs

client_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(ClientMessage)
server_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(ServerMessage)
_encoder = msgspec.json.Encoder()


def encode(msg: Any) -> bytes:
    """JSON bytes of a message (a Struct or a JSON-ready dict)."""
    return _encoder.encode(msg)


def decode_client(data: bytes | str) -> Any:
    """Strictly decode one client message (raises msgspec.DecodeError / ValidationError)."""
    return client_decoder.decode(data)


def decode_server(data: bytes | str) -> Any:
    """Leniently decode one server message (unknown fields are ignored)."""
    return server_decoder.decode(data)
