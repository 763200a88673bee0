"""Translations of every message the client prints: English, French and Czech.

:data:`MESSAGES` maps a language to ``key -> template``. Every language has every key (a test
checks it). Templates are ``str.format`` strings with two additions (:class:`_Formatter`):
``{n:p:card|cards}`` picks the word form for the number ``n`` (Czech has three, and a fourth
for fractions: ``{n:p:bod|body|bodů|bodu}``), and ``{x:num}`` writes a number the language's
way (``7,5`` in French and Czech). :class:`Tr` looks keys up; a key missing in a language
falls back to English and is remembered in :attr:`Tr.missing` (tests keep it empty).

The words are the team's vocabulary (tools/TEAM.md): French as a federation player writes it,
Czech as the rule card that Atout grew from (zdvih, trumf, Výmluva, bouty, beroucí, hrst...).
"""

from __future__ import annotations

import argparse
import os
import string
from typing import Any

from . import cards as C
from .account_texts import TEXTS as ACCOUNT_TEXTS
from .extra_texts import TEXTS as EXTRA_TEXTS

LANGUAGES = ("en", "fr", "cs")

EN: dict[str, str] = {
    # --- command line
    "cli.description": "Atout: play French Tarot in your terminal against AI players or friends.",
    "cli.epilog": (
        "Without a command, `atout` runs `play`. Options may come before or after the command. "
        "The server is {default} unless --server or ATOUT_SERVER says otherwise; start a local "
        "one with `make serve` (or `atout-server serve`)."
    ),
    "cli.server": "server URL, e.g. ws://127.0.0.1:8765 (env ATOUT_SERVER)",
    "cli.name": "your display name (env ATOUT_NAME; default: your login)",
    "cli.lang": "language: en, fr or cs (default: the one you chose in a game with the command `set lang`, else from LANG / LC_ALL)",
    "cli.auto": "let a simple bot make every decision for you",
    "cli.auto_single": "play the only legal card without asking",
    "cli.json": "print the protocol messages as JSON lines instead of the table",
    "cli.play": "play a game against three AI players (a new private table)",
    "cli.tables": "list the public tables of the server",
    "cli.all": "list every public table (all pages), not only the first ones",
    "cli.join": "take a seat at a table (a friend's table, or one from `atout tables`)",
    "cli.create": "create a table for friends and print how they join",
    "cli.watch": "follow a table as a spectator",
    "cli.rules": "read the rules of the game (a topic, or a rule number such as R7.5)",
    "cli.topic": "a topic (see `atout rules`) or a rule number",
    "cli.table_id": "the table id (see `atout tables`, or the one your friend printed)",
    "cli.seat": "seat number 0..3 (default: any free seat)",
    "cli.deals": "number of scored deals to play (default 4; a deal nobody takes is dealt again)",
    "cli.target": "play until a player reaches this score (instead of --deals)",
    "cli.ai": "AI level for the empty seats (default {default}; `--ai list` shows the server's levels)",
    "cli.think": "seconds an AI waits before acting (default: the speed you chose in a game with the command `set speed`, else the server's)",
    "cli.pause": "seconds between two deals (default: the server's)",
    "cli.timer": "seconds a player has to act before the AI plays for them (default: the server's limit)",
    "cli.table_name": "the table's name shown in `atout tables`",
    "cli.private": "do not list the table publicly (friends need its id to join)",
    "cli.public": "list the table publicly so that others can watch it",
    "cli.levels": "AI levels of this server:",
    # --- people and seats
    "seat.you": "You",
    "seat.you_in": "you",
    "seat.n": "Seat {n}",
    "seat.ai": "AI {n}",
    "seat.empty": "(empty)",
    "seat.away": "away, AI plays",
    "seat.guest": "guest",
    "seat.bot": "bot",
    "seat.dealer": "dealer",
    "seat.taker": "taker",
    "pos.you": "you",
    "pos.seat": "seat {n}",
    "pos.right": "right",
    "pos.across": "across",
    "pos.left": "left",
    # --- cards
    "suit.S": "spades",
    "suit.H": "hearts",
    "suit.D": "diamonds",
    "suit.C": "clubs",
    "suit.T": "trumps",
    "rank.1": "ace",
    "rank.J": "jack",
    "rank.C": "knight",
    "rank.Q": "queen",
    "rank.K": "king",
    "card.plain": "{rank} of {suit}",
    "card.trump": "trump {n}",
    "card.petit": "the Petit, trump 1",
    "card.monde": "trump 21",
    "card.excuse": "the Excuse",
    # --- contracts, phases, levels
    "contract.pass": "pass",
    "contract.prise": "prise (×1)",
    "contract.garde": "garde (×2)",
    "contract.garde_sans": "garde sans le chien (×4)",
    "contract.garde_contre": "garde contre le chien (×6)",
    "level.single": "single",
    "level.double": "double",
    "level.triple": "triple",
    "level_acc.single": "single",
    "level_acc.double": "double",
    "level_acc.triple": "triple",
    "state.waiting": "waiting",
    "state.playing": "playing",
    "state.finished": "finished",
    "state.closed": "closed",
    "closed.closed": "closed by its creator",
    "closed.abandoned": "nobody was left at it",
    "ai.easy": "easy",
    "ai.normal": "normal",
    "ai.strong": "strong",
    "ai.random": "random (any legal move)",
    "ai.heuristic": "heuristic (the former name of normal)",
    # --- table screen
    "screen.title": "Table {table} · deal {deal}",
    "screen.title_of": "Table {table} · deal {deal} of {total}",
    "screen.title_redealt": "Table {table} · deal {deal} · {scored} of {total} scored",
    "screen.seat": "Seat",
    "screen.player": "Player",
    "screen.bid": "Bid",
    "screen.won": "Tricks",
    "screen.score": "Score",
    "screen.cards": "Cards",
    "screen.to_bidding": "◀ to bid",
    "screen.to_discard": "◀ to discard",
    "screen.to_chelem": "◀ to decide",
    "screen.to_play": "◀ to play",
    "screen.led": "led",
    "screen.contract": "Contract: {contract} — taker: {taker}",
    "screen.chelem": "Chelem announced by {name}",
    "screen.chien": "Chien: {cards}",
    "screen.chien_hidden": "Chien: not shown ({contract})",
    "screen.discard_trumps": "Trumps in the discard: {cards}",
    "screen.your_discard": "Your discard: {cards}",
    "screen.poignee": "{name}: {level} poignée: {cards}",
    "screen.last_trick": "Last trick (won by {name}): {cards}",
    "screen.hand": "Your hand ({n} {n:p:card|cards})",
    "screen.hand_legend": "Cards with a number are the ones you may play now.",
    "screen.hand_legend_discard": "Cards with a number may go to the discard.",
    "screen.trumps": "Trumps",
    "screen.timer": "You have {s:.0f} s before the AI plays for you.",
    "screen.timer_left": "{s} s left before the AI plays for you.",
    # --- narration of events
    "ev.deal_start": "Deal {n} — dealer: {name}",
    "ev.bid": "{name} bids {contract}.",
    "ev.pass": "{name} passes.",
    "ev.contract": "{name} takes: {contract}.",
    "ev.chien": "The chien is shown: {cards}",
    "ev.discard": "{name} has discarded six cards.",
    "ev.discard_trumps": "{name} has discarded six cards, including {n:p:the trump|the trumps} {cards}.",
    "ev.discard_you": "You discarded {cards}.",
    "ev.chelem_yes": "{name} announces a chelem and leads the first trick!",
    "ev.chelem_no": "No chelem. {name} leads the first trick.",
    "ev.poignee": "{name} shows a {level} poignée: {cards}",
    "ev.play": "{name} plays {card}.",
    "ev.trick": "Trick {n} goes to {name} ({points:num} {points:p:point|points}): {cards}",
    "ev.trick_excuse": "Trick {n} goes to {name} ({points:num} {points:p:point|points}; the Excuse stays with {owner}): {cards}",
    "ev.bid_you": "You bid {contract}.",
    "ev.pass_you": "You pass.",
    "ev.contract_you": "You take: {contract}.",
    "ev.chelem_yes_you": "You announce a chelem and lead the first trick!",
    "ev.chelem_no_you": "No chelem. You lead the first trick.",
    "ev.poignee_you": "You show a {level} poignée: {cards}",
    "ev.play_you": "You play {card}.",
    "ev.trick_you": "You win trick {n} ({points:num} {points:p:point|points}): {cards}",
    "ev.trick_excuse_you": "You win trick {n} ({points:num} {points:p:point|points}; the Excuse stays with {owner}): {cards}",
    "ev.annulled": "The deal is annulled: {reason}.",
    "ev.dealt_again": "It does not count among the table's deals: the next dealer deals again.",
    "reason.petit_sec": "a player holds the Petit sec (the Petit as the only trump, without the Excuse)",
    "reason.all_passed": "everybody passed",
    "ev.seat_joined": "{name} sits at seat {n}.",
    "ev.seat_ai": "An AI now plays seat {n}.",
    "ev.seat_empty": "Seat {n} is free.",
    "ev.seat_away": "{name} lost the connection; the AI stands in until they are back.",
    "ev.seat_back": "{name} is back.",
    "ev.timeout": "Time is up: the AI decided for you.",
    "ev.ai_for_you": "The AI played for you: {action}.",
    "ev.away_actions": "While you were away, the AI made {n} {n:p:move|moves} for you: {actions}.",
    "ev.started": "The game starts.",
    "ev.finished": "The game is over.",
    "ev.closed": "The table is closed ({reason}).",
    "act.discard": "the discard",
    "act.chelem_yes": "a chelem announced",
    "act.chelem_no": "no chelem",
    "act.poignee": "a poignée shown",
    # --- prompts
    "prompt.bid": "Your bid",
    "prompt.bid_help": "Type a number or a contract name.",
    "prompt.discard": "Your discard",
    "prompt.discard_help": (
        "Choose {n} {n:p:card|cards} to put in the discard: numbers or codes, separated by spaces."
    ),
    "prompt.discard_required": "Already in the discard (required by R5.3): {cards}",
    "prompt.discard_rule_plain": (
        "You hold {n} plain {n:p:card|cards} (cards of a suit that are not kings), so the discard is "
        "six plain cards: no trump, no king, no oudler (R5.2, R5.3)."
    ),
    "prompt.discard_rule_forced": (
        "You hold only {n} plain {n:p:card|cards}: all of them go to the discard, completed with "
        "trumps from T2..T20, which everybody will see (R5.3, R5.4)."
    ),
    "prompt.discard_confirm": "Press Enter to discard these cards.",
    "prompt.chelem": "Announce a chelem? [y/N]",
    "prompt.chelem_help": "A chelem announced: you then lead and must win all 18 tricks (+400, else −200).",
    "prompt.chelem_confirm": "Really announce it? One lost trick costs 200 [y/N]",
    "prompt.poignee": "Show a poignée?",
    "prompt.poignee_help": (
        "Enter: no. A number: show that default set. Or type the {size} cards you want to show."
    ),
    "prompt.poignee_option": "{i}: {level} — {size} cards, bonus {bonus}: {cards}",
    "prompt.play": "Your card",
    "prompt.play_single": "Your card (Enter: {card}, the only one you may play)",
    "prompt.play_help": "Type the card's number or code (e.g. {example}).",
    "prompt.only_card": "{card} is the only card you may play: it is played.",
    "prompt.continue": "Enter: continue · r: review the deal trick by trick",
    "prompt.last_continue": "Enter: finish · r: review the deal trick by trick",
    "prompt.start": "Waiting for players ({n}/4 seated). Type `start` to start now with AI players in the empty seats.",
    "prompt.lobby": "start, help or quit",
    "prompt.lobby_help": "The game has not started: `start` starts it now (AI players take the empty seats), `quit` leaves.",
    "prompt.idle": "Not your turn: waiting for {name}. (help: commands)",
    "prompt.quit_confirm": "Leave the table? The AI plays your seat until you come back [y/N]",
    "prompt.see_rule": "Type `rule` to read rule {rule}.",
    "help.commands": (
        "Commands: a number or card code at your turn; `table` draws the table and your hand; "
        "`review [N]` shows a finished deal trick by trick (the last one, or deal N); `score` the "
        "score sheet and standings; `rules [TOPIC]` the rules; `rule` the rule of the last "
        "refusal; `set` your settings (language, AI speed, pause after a deal); `start` starts a "
        "waiting table; `help`; `quit`. In French: aide, table, revoir, score, règles, quitter."
    ),
    "help.codes": (
        "Card codes: suit letter S (spades), H (hearts), D (diamonds), C (clubs) and rank "
        "1..10, J, C (knight), Q, K — e.g. H10, SK, DC; trumps T1..T21; the Excuse EX. "
        "Upper or lower case."
    ),
    "yes.words": "y,yes,o,oui,a,ano",
    "no.words": "n,no,non,ne",
    # --- refusals
    "err.empty": "Please type something (help: `help`).",
    "err.unknown": "“{text}” is not a card code or a number from the list.",
    "err.number": "There is no number {n} in the list: choose 1 to {max}.",
    "err.not_in_hand": "{card} is not in your hand.",
    "err.bid": "“{text}” is not a bid you can make now. Choose one of: {options}.",
    "err.bid_low": "{contract} is not enough: a bid must be higher than the highest so far (R4.2). Choose one of: {options}.",
    "err.yes_no": "Please answer y (yes) or n (no).",
    "err.illegal_play": "You may not play {card}: {why}",
    "why.follow": "you must follow {suit} since you have some (R7.5).",
    "why.trump": "you have no {suit}, so you must play a trump (R7.5).",
    "why.trump_led": "trumps were led and you have some: you must play a trump (R7.5).",
    "why.overtrump": "you must play a trump higher than {card} since you have one: {cards} (R7.6).",
    "why.generic": "the rules do not allow it now ({rule}).",
    "why.legal": "You may play: {cards}.",
    "err.discard_count": "The discard is exactly {count} cards; you named {n}.",
    "err.discard_twice": "{card} is named twice.",
    "err.discard_never": "{card} may never be discarded: kings and oudlers never go to the discard (R5.2).",
    "err.discard_trump": "{card} is a trump: with six or more plain cards you may not discard a trump (R5.3).",
    "err.discard_not_choice": "{card} cannot complete the discard: only plain cards and trumps T2..T20 may (R5.3).",
    "err.poignee_size": "A {level} poignée shows exactly {size} cards; you named {n}.",
    "err.poignee_card": "{card} cannot be shown: a poignée shows only trumps (and the Excuse) from your hand (R6.4).",
    "err.poignee_excuse": "The Excuse may stand in for a trump only when you show all your trumps (R6.4).",
    "err.server": "The server refused: {message}",
    "err.rule": "(rule {rule})",
    "err.no_table": "There is no open table “{table}”. `atout tables` lists the public ones.",
    "err.full": "Table {table} has four players already.",
    "err.seat_taken": "That seat is taken by another player; try another --seat or none.",
    "err.which_seat": "At table {table} you hold seats {seats} under the name {name}: say which one with --seat.",
    "err.connect": "Cannot reach the server at {url}: {error}",
    "err.connect_hint": "Is the server running? Start one with `make serve` (or `atout-server serve`), or give --server.",
    "err.version": "The server does not speak this client's protocol version ({error}).",
    "err.replaced": "Your seat was taken over by another connection (the same player elsewhere).",
    "err.gave_up": "Could not reconnect to the server for two minutes; giving up.",
    "err.moving": "The table is moving to another server process; trying again.",
    "err.bad_url": "“{url}” is not a WebSocket URL (ws://host:port or wss://host).",
    "code.not_your_turn": "It is not your turn.",
    "code.wrong_phase": "This is not what the deal expects now.",
    "code.illegal_action": "The rules do not allow this move.",
    "code.not_seated": "You no longer hold a seat at this table.",
    "code.not_your_seat": "That is not your seat.",
    "code.storage_unavailable": "The server cannot save right now; nothing changed. Try again in a moment.",
    "code.rate_limited": "Too many messages at once; slow down a little.",
    "code.shutting_down": "The server is shutting down.",
    "code.internal": "The server ran into an error; nothing changed.",
    "code.no_such_table": "This table is no longer open.",
    "code.bad_token": "Your seat could not be taken back: the time to come back has run out.",
    "code.table_moving": "This table is moving to another server process: nothing changed. Try again in a moment.",
    "code.wrong_state": "The table cannot do that in its present state.",
    "code.not_allowed": "Only the table's creator or a seated player may do that.",
    "code.limit_reached": "The server's limit is reached (too many tables).",
    "code.invalid_field": "The server could not read that request.",
    # --- connection
    "net.connected": "Connected to {url} as {name}.",
    "net.lost": "Connection lost {t:.0f} s ago; trying again in {s:.1f} s (attempt {n})…",
    "net.resumed": "Reconnected: your seat is back.",
    "net.rewatch": "Reconnected: watching again.",
    # --- lobby
    "tables.none": "No public table is open. Start a game with `atout play`, or `atout create` one for friends.",
    "tables.title": "Public tables on {url}",
    "tables.id": "Table",
    "tables.name": "Name",
    "tables.state": "State",
    "tables.players": "Players",
    "tables.deal": "Deal",
    "tables.watchers": "Watchers",
    "tables.more": "These are the first {n} of {total} tables: `atout tables --all` lists them all.",
    "tables.join_hint": "Join one with `atout join TABLE`, or watch it with `atout watch TABLE`.",
    "create.done": "Table {table} is created.",
    "create.join": "Friends join it with:",
    "create.watch": "Spectators follow it with:",
    "play.created": "A new table with three AI players (level {ai}) is ready; you sit at seat {seat}.",
    "join.done": "You sit at seat {seat} of table {table}.",
    "join.back": "You are back at seat {seat} of table {table}.",
    "join.other_seat": "Your seat {old} could not be taken back ({why}); you now sit at seat {seat} of table {table}.",
    "join.why_expired": "the time to come back had run out",
    "join.why_taken": "another player sits there now",
    "watch.done": "You are watching table {table}. Ctrl-C to stop.",
    "bye": "Bye!",
    "bye.seat": "Bye! An AI plays your seat; within {grace:.0f} s this command gives it back to you:",
    # --- rejoining
    "rejoin.title": "While you were away:",
    "rejoin.moves": "deal {deal}: the AI made {n} {n:p:move|moves} for you: {actions}",
    "rejoin.annulled": "deal {n} was annulled ({reason})",
    "rejoin.played_made": "deal {n}: {name} took a {contract} and made it by {d:num}; your score {score:num}",
    "rejoin.played_failed": "deal {n}: {name} took a {contract} and failed by {d:num}; your score {score:num}",
    # --- end of deal
    "sum.title": "Deal {n}: result",
    "sum.contract": "Contract",
    "sum.taker": "Taker",
    "sum.oudlers": "Oudlers",
    "sum.oudlers_value": "{n}, so {target:num} points needed",
    "sum.points": "Card points",
    "sum.points_value": "taker {p:num}, defence {d:num}",
    "sum.outcome": "Outcome",
    "sum.won": "made by {d:num} {d:p:point|points}",
    "sum.lost": "failed by {d:num} {d:p:point|points}",
    "sum.base": "Base",
    "sum.base_value": "(25 + {d:num}) × {m} = {total:num}, {side}",
    "sum.petit": "Petit au bout",
    "sum.poignee": "Poignées",
    "sum.chelem": "Chelem",
    "sum.amount": "{total:num}, {side}",
    "sum.for_taker": "for the taker",
    "sum.for_defence": "for the defence",
    "sum.settle": "Result",
    "sum.defenders_pay": "each defender pays {each:num}: the taker wins {taker:num}",
    "sum.defenders_win": "each defender wins {each:num}: the taker pays {taker:num}",
    "sum.scores": "This deal",
    "sum.total": "Total",
    "sum.standings": "Standings after deal {n}",
    "sum.standings_before": "Standings before deal {n}",
    "sum.final": "Final standings",
    "sum.winner": "Winner: {name}!",
    "sum.winners": "Winners: {names}!",
    "sum.you_win": "You win!",
    "sum.annulled": "Deal {n} was annulled: {reason}. Nobody scores.",
    "sheet.title": "Score sheet",
    "sheet.deal": "Deal",
    "sheet.contract": "Contract",
    "sheet.taker": "Taker",
    "sheet.outcome": "Outcome",
    "sheet.made": "made by {d:num}",
    "sheet.failed": "failed by {d:num}",
    "sheet.annulled": "{n:p:annulled|annulled}",
    "sheet.none": "No deal of this series is finished yet.",
    "rev.title": "Deal {n}, trick by trick",
    "rev.trick": "#",
    "rev.winner": "Winner",
    "rev.points": "Points",
    "rev.running": "Taker's total",
    "rev.pile": "+ discard / chien for the taker: {points:num}",
    "rev.pile_defence": "+ chien for the defence (garde contre)",
    "rev.final": "Taker's card points: {points:num} (needed {target:num})",
    "rev.hands": "Hands as dealt",
    "rev.chien": "Chien",
    "rev.none": "No finished deal to review yet.",
    "rev.no_such": "Deal {n} is not a finished deal of this table.",
    # --- rules and settings
    "rules.help": "`rules 6` or `rules TOPIC` shows a topic (its number, or its name, the start of it or a word of it), `rules R7.5` the rule's topic.",
    "rules.unknown": "No topic or rule “{topic}”.",
    "set.show": "Settings: language {lang}, AI speed {speed:num} s, after a deal: {pause}.",
    "set.enter": "wait for Enter",
    "set.help": "Change one with `set lang fr`, `set speed 1.5` (or fast, normal, slow), `set pause 5` (or enter). They are kept for next time.",
    "set.bad": "“{key} {value}” is not a setting I know.",
    "set.done": "Done; kept for next time.",
    "ev.trick_excuse_mine": "Trick {n} goes to {name} ({points:num} {points:p:point|points}; your Excuse stays with your side): {cards}",
}


FR: dict[str, str] = {
    "cli.description": "Atout : jouez au tarot dans votre terminal contre des IA ou entre amis.",
    "cli.epilog": (
        "Sans commande, `atout` lance `play`. Les options se placent avant ou après la commande. "
        "Le serveur est {default}, sauf si --server ou ATOUT_SERVER en indiquent un autre ; "
        "lancez-en un en local avec `make serve` (ou `atout-server serve`)."
    ),
    "cli.server": "adresse du serveur, p. ex. ws://127.0.0.1:8765 (variable ATOUT_SERVER)",
    "cli.name": "votre nom à la table (variable ATOUT_NAME ; par défaut : votre identifiant)",
    "cli.lang": "langue : en, fr ou cs (par défaut : celle choisie en cours de partie avec la commande `set lang`, sinon selon LANG / LC_ALL)",
    "cli.auto": "laisser un robot simple prendre toutes les décisions à votre place",
    "cli.auto_single": "jouer sans demander la seule carte jouable",
    "cli.json": "afficher les messages du protocole en lignes JSON au lieu de la table",
    "cli.play": "jouer une partie contre trois IA (nouvelle table privée)",
    "cli.tables": "lister les tables publiques du serveur",
    "cli.all": "lister toutes les tables publiques (toutes les pages), pas seulement les premières",
    "cli.join": "prendre place à une table (celle d'un ami ou une de `atout tables`)",
    "cli.create": "créer une table pour des amis et afficher comment la rejoindre",
    "cli.watch": "suivre une table en spectateur",
    "cli.rules": "lire les règles du jeu (un thème, ou un numéro de règle comme R7.5)",
    "cli.topic": "un thème (voir `atout rules`) ou un numéro de règle",
    "cli.table_id": "l'identifiant de la table (voir `atout tables`, ou celui donné par votre ami)",
    "cli.seat": "numéro de place 0..3 (par défaut : une place libre)",
    "cli.deals": "nombre de donnes jouées à marquer (4 par défaut ; une donne que personne ne prend est redistribuée)",
    "cli.target": "jouer jusqu'à ce qu'un joueur atteigne ce score (au lieu de --deals)",
    "cli.ai": "niveau des IA aux places vides (par défaut {default} ; `--ai list` montre les niveaux du serveur)",
    "cli.think": "secondes de réflexion d'une IA avant de jouer (par défaut : la vitesse choisie en cours de partie avec la commande `set speed`, sinon celle du serveur)",
    "cli.pause": "secondes entre deux donnes (par défaut : celui du serveur)",
    "cli.timer": "secondes accordées à un joueur avant que l'IA ne joue pour lui (par défaut : la limite du serveur)",
    "cli.table_name": "le nom de la table affiché par `atout tables`",
    "cli.private": "ne pas lister la table publiquement (vos amis ont besoin de son identifiant)",
    "cli.public": "lister la table publiquement pour que d'autres puissent la regarder",
    "cli.levels": "Niveaux d'IA de ce serveur :",
    "seat.you": "Vous",
    "seat.you_in": "vous",
    "seat.n": "Place {n}",
    "seat.ai": "IA {n}",
    "seat.empty": "(libre)",
    "seat.away": "absent, l'IA joue",
    "seat.guest": "invité",
    "seat.bot": "bot",
    "seat.dealer": "donneur",
    "seat.taker": "preneur",
    "pos.you": "vous",
    "pos.seat": "place {n}",
    "pos.right": "à droite",
    "pos.across": "en face",
    "pos.left": "à gauche",
    "suit.S": "pique",
    "suit.H": "cœur",
    "suit.D": "carreau",
    "suit.C": "trèfle",
    "suit.T": "atout",
    "rank.1": "as",
    "rank.J": "valet",
    "rank.C": "cavalier",
    "rank.Q": "dame",
    "rank.K": "roi",
    "card.plain": "{rank} de {suit}",
    "card.trump": "le {n} d'atout",
    "card.petit": "le Petit",
    "card.monde": "le 21 d'atout",
    "card.excuse": "l'Excuse",
    "contract.pass": "passe",
    "contract.prise": "prise (×1)",
    "contract.garde": "garde (×2)",
    "contract.garde_sans": "garde sans le chien (×4)",
    "contract.garde_contre": "garde contre le chien (×6)",
    "level.single": "simple",
    "level.double": "double",
    "level.triple": "triple",
    "level_acc.single": "simple",
    "level_acc.double": "double",
    "level_acc.triple": "triple",
    "state.waiting": "en attente",
    "state.playing": "en jeu",
    "state.finished": "terminée",
    "state.closed": "fermée",
    "closed.closed": "fermée par son créateur",
    "closed.abandoned": "plus personne à la table",
    "ai.easy": "facile",
    "ai.normal": "normal",
    "ai.strong": "fort",
    "ai.random": "hasard (n'importe quel coup permis)",
    "ai.heuristic": "heuristique (l'ancien nom du niveau normal)",
    "screen.title": "Table {table} · donne {deal}",
    "screen.title_of": "Table {table} · donne {deal} sur {total}",
    "screen.title_redealt": "Table {table} · donne {deal} · {scored} sur {total} {scored:p:comptée|comptées}",
    "screen.seat": "Place",
    "screen.player": "Joueur",
    "screen.bid": "Enchère",
    "screen.won": "Plis",
    "screen.score": "Score",
    "screen.cards": "Cartes",
    "screen.to_bidding": "◀ parle",
    "screen.to_discard": "◀ fait l'écart",
    "screen.to_chelem": "◀ décide",
    "screen.to_play": "◀ à jouer",
    "screen.led": "entame",
    "screen.contract": "Contrat : {contract} — preneur : {taker}",
    "screen.chelem": "Chelem annoncé par {name}",
    "screen.chien": "Chien : {cards}",
    "screen.chien_hidden": "Chien : non montré ({contract})",
    "screen.discard_trumps": "Atouts écartés : {cards}",
    "screen.your_discard": "Votre écart : {cards}",
    "screen.poignee": "{name} : poignée {level} : {cards}",
    "screen.last_trick": "Dernier pli (remporté par {name}) : {cards}",
    "screen.hand": "Votre main ({n} {n:p:carte|cartes})",
    "screen.hand_legend": "Les cartes numérotées sont celles que vous pouvez jouer maintenant.",
    "screen.hand_legend_discard": "Les cartes numérotées peuvent aller à l'écart.",
    "screen.trumps": "Atouts",
    "screen.timer": "Vous avez {s:.0f} s avant que l'IA ne joue pour vous.",
    "screen.timer_left": "Plus que {s} s avant que l'IA ne joue pour vous.",
    "ev.deal_start": "Donne {n} — donneur : {name}",
    "ev.bid": "{name} annonce {contract}.",
    "ev.pass": "{name} passe.",
    "ev.contract": "{name} prend : {contract}.",
    "ev.chien": "Le chien est retourné : {cards}",
    "ev.discard": "{name} a fait son écart.",
    "ev.discard_trumps": "{name} a fait son écart, avec {n:p:l'atout|les atouts} {cards}.",
    "ev.discard_you": "Vous avez écarté {cards}.",
    "ev.chelem_yes": "{name} annonce un chelem et entame le premier pli !",
    "ev.chelem_no": "Pas de chelem. {name} entame le premier pli.",
    "ev.poignee": "{name} montre une poignée {level} : {cards}",
    "ev.play": "{name} joue {card}.",
    "ev.trick": "Le pli {n} va à {name} ({points:num} {points:p:point|points}) : {cards}",
    "ev.trick_excuse": "Le pli {n} va à {name} ({points:num} {points:p:point|points} ; l'Excuse reste à {owner}) : {cards}",
    "ev.bid_you": "Vous annoncez {contract}.",
    "ev.pass_you": "Vous passez.",
    "ev.contract_you": "Vous prenez : {contract}.",
    "ev.chelem_yes_you": "Vous annoncez un chelem et entamez le premier pli !",
    "ev.chelem_no_you": "Pas de chelem. Vous entamez le premier pli.",
    "ev.poignee_you": "Vous montrez une poignée {level} : {cards}",
    "ev.play_you": "Vous jouez {card}.",
    "ev.trick_you": "Vous remportez le pli {n} ({points:num} {points:p:point|points}) : {cards}",
    "ev.trick_excuse_you": "Vous remportez le pli {n} ({points:num} {points:p:point|points} ; l'Excuse reste à {owner}) : {cards}",
    "ev.annulled": "La donne est annulée : {reason}.",
    "ev.dealt_again": "Elle ne compte pas parmi les donnes de la table : le donneur suivant redistribue.",
    "reason.petit_sec": "un joueur a le Petit sec (le Petit pour seul atout, sans l'Excuse)",
    "reason.all_passed": "tout le monde a passé",
    "ev.seat_joined": "{name} s'assoit à la place {n}.",
    "ev.seat_ai": "Une IA joue désormais la place {n}.",
    "ev.seat_empty": "La place {n} est libre.",
    "ev.seat_away": "{name} a perdu la connexion ; l'IA joue à sa place jusqu'à son retour.",
    "ev.seat_back": "{name} est de retour.",
    "ev.timeout": "Temps écoulé : l'IA a décidé pour vous.",
    "ev.ai_for_you": "L'IA a joué pour vous : {action}.",
    "ev.away_actions": "Pendant votre absence, l'IA a joué {n} {n:p:coup|coups} pour vous : {actions}.",
    "ev.started": "La partie commence.",
    "ev.finished": "La partie est terminée.",
    "ev.closed": "La table est fermée ({reason}).",
    "act.discard": "l'écart",
    "act.chelem_yes": "un chelem annoncé",
    "act.chelem_no": "pas de chelem",
    "act.poignee": "une poignée montrée",
    "prompt.bid": "Votre enchère",
    "prompt.bid_help": "Tapez un numéro ou le nom d'un contrat.",
    "prompt.discard": "Votre écart",
    "prompt.discard_help": (
        "Choisissez {n} {n:p:carte|cartes} à écarter : numéros ou codes, séparés par des espaces."
    ),
    "prompt.discard_required": "Déjà dans l'écart (imposé par R5.3) : {cards}",
    "prompt.discard_rule_plain": (
        "Vous avez {n} {n:p:carte basse|cartes basses} (cartes de couleur hors rois), donc l'écart est "
        "de six cartes basses : ni atout, ni roi, ni bout (R5.2, R5.3)."
    ),
    "prompt.discard_rule_forced": (
        "Vous n'avez que {n} {n:p:carte basse|cartes basses} : elles vont toutes à l'écart, complété "
        "par des atouts de T2 à T20, que tout le monde verra (R5.3, R5.4)."
    ),
    "prompt.discard_confirm": "Appuyez sur Entrée pour écarter ces cartes.",
    "prompt.chelem": "Annoncer un chelem ? [o/N]",
    "prompt.chelem_help": "Chelem annoncé : vous entamez et devez faire les 18 plis (+400, sinon −200).",
    "prompt.chelem_confirm": "Vraiment l'annoncer ? Un pli perdu coûte 200 [o/N]",
    "prompt.poignee": "Montrer une poignée ?",
    "prompt.poignee_help": (
        "Entrée : non. Un numéro : montrer cette sélection. Ou tapez les {size} cartes à montrer."
    ),
    "prompt.poignee_option": "{i} : {level} — {size} cartes, prime de {bonus} : {cards}",
    "prompt.play": "Votre carte",
    "prompt.play_single": "Votre carte (Entrée : {card}, la seule que vous pouvez jouer)",
    "prompt.play_help": "Tapez le numéro ou le code de la carte (p. ex. {example} ; R, D, C, V pour roi, dame, cavalier, valet).",
    "prompt.only_card": "{card} est la seule carte jouable : elle est jouée.",
    "prompt.continue": "Entrée : continuer · r : revoir la donne pli par pli",
    "prompt.last_continue": "Entrée : terminer · r : revoir la donne pli par pli",
    "prompt.start": "En attente de joueurs ({n}/4 assis). Tapez `start` pour commencer tout de suite avec des IA aux places vides.",
    "prompt.lobby": "start, aide ou quitter",
    "prompt.lobby_help": "La partie n'a pas commencé : `start` la lance tout de suite (des IA prennent les places vides), `quitter` s'en va.",
    "prompt.idle": "Ce n'est pas votre tour : on attend {name}. (aide : commandes)",
    "prompt.quit_confirm": "Quitter la table ? L'IA joue votre place jusqu'à votre retour [o/N]",
    "prompt.see_rule": "Tapez `règle` pour lire la règle {rule}.",
    "help.commands": (
        "Commandes : un numéro ou un code de carte à votre tour ; `table` affiche la table et votre "
        "main ; `revoir [N]` montre une donne terminée pli par pli (la dernière, ou la donne N) ; "
        "`score` la feuille de marque et le classement ; `règles [THÈME]` les règles ; `règle` la "
        "règle du dernier refus ; `set` vos réglages (langue, vitesse des IA, pause après une "
        "donne) ; `start` lance une table en attente ; `aide` ; `quitter`."
    ),
    "help.codes": (
        "Codes des cartes : couleur S (pique), H (cœur), D (carreau), C (trèfle) puis la valeur "
        "1..10, V ou J (valet), C (cavalier), D ou Q (dame), R ou K (roi) — p. ex. H10, SR, DC ; "
        "atouts T1..T21 ; l'Excuse EX. Majuscules ou minuscules."
    ),
    "yes.words": "o,oui,y,yes,a,ano",
    "no.words": "n,non,no,ne",
    "err.empty": "Tapez quelque chose (aide : `aide`).",
    "err.unknown": "« {text} » n'est ni un code de carte ni un numéro de la liste.",
    "err.number": "Il n'y a pas de numéro {n} dans la liste : choisissez de 1 à {max}.",
    "err.not_in_hand": "{card} n'est pas dans votre main.",
    "err.bid": "« {text} » n'est pas une enchère possible maintenant. Choisissez parmi : {options}.",
    "err.bid_low": "{contract} ne suffit pas : une enchère doit dépasser la plus haute déjà faite (R4.2). Choisissez parmi : {options}.",
    "err.yes_no": "Répondez o (oui) ou n (non).",
    "err.illegal_play": "Vous ne pouvez pas jouer {card} : {why}",
    "why.follow": "vous devez fournir à {suit} puisque vous en avez (R7.5).",
    "why.trump": "vous n'avez pas de {suit}, vous devez donc couper (R7.5).",
    "why.trump_led": "atout demandé et vous en avez : vous devez jouer atout (R7.5).",
    "why.overtrump": "vous devez monter sur {card} puisque vous le pouvez : {cards} (R7.6).",
    "why.generic": "les règles ne le permettent pas maintenant ({rule}).",
    "why.legal": "Vous pouvez jouer : {cards}.",
    "err.discard_count": "L'écart compte exactement {count} cartes ; vous en avez donné {n}.",
    "err.discard_twice": "{card} est donnée deux fois.",
    "err.discard_never": "{card} ne peut jamais être écartée : ni rois ni bouts à l'écart (R5.2).",
    "err.discard_trump": "{card} est un atout : avec six cartes basses ou plus, on n'écarte pas d'atout (R5.3).",
    "err.discard_not_choice": "{card} ne peut pas compléter l'écart : seuls des cartes basses et des atouts de T2 à T20 le peuvent (R5.3).",
    "err.poignee_size": "Une poignée {level} montre exactement {size} cartes ; vous en avez donné {n}.",
    "err.poignee_card": "{card} ne peut pas être montrée : une poignée ne montre que des atouts (et l'Excuse) de votre main (R6.4).",
    "err.poignee_excuse": "L'Excuse ne remplace un atout que si vous montrez tous vos atouts (R6.4).",
    "err.server": "Le serveur a refusé : {message}",
    "err.rule": "(règle {rule})",
    "err.no_table": "Aucune table ouverte « {table} ». `atout tables` liste les tables publiques.",
    "err.full": "La table {table} a déjà quatre joueurs.",
    "err.seat_taken": "Cette place est prise par un autre joueur ; essayez une autre --seat, ou aucune.",
    "err.which_seat": "À la table {table}, vous tenez les places {seats} sous le nom {name} : choisissez-en une avec --seat.",
    "err.connect": "Impossible de joindre le serveur {url} : {error}",
    "err.connect_hint": "Le serveur tourne-t-il ? Lancez-en un avec `make serve` (ou `atout-server serve`), ou indiquez --server.",
    "err.version": "Le serveur ne parle pas la version du protocole de ce client ({error}).",
    "err.replaced": "Votre place a été reprise par une autre connexion (vous-même, ailleurs).",
    "err.gave_up": "Impossible de se reconnecter au serveur depuis deux minutes ; abandon.",
    "err.moving": "La table passe sur un autre processus du serveur ; nouvel essai.",
    "err.bad_url": "« {url} » n'est pas une adresse WebSocket (ws://hôte:port ou wss://hôte).",
    "code.not_your_turn": "Ce n'est pas votre tour.",
    "code.wrong_phase": "Ce n'est pas ce que la donne attend maintenant.",
    "code.illegal_action": "Les règles ne permettent pas ce coup.",
    "code.not_seated": "Vous n'avez plus de place à cette table.",
    "code.not_your_seat": "Ce n'est pas votre place.",
    "code.storage_unavailable": "Le serveur ne peut pas enregistrer pour l'instant ; rien n'a changé. Réessayez dans un instant.",
    "code.rate_limited": "Trop de messages d'un coup ; ralentissez un peu.",
    "code.shutting_down": "Le serveur s'arrête.",
    "code.internal": "Le serveur a rencontré une erreur ; rien n'a changé.",
    "code.no_such_table": "Cette table n'est plus ouverte.",
    "code.bad_token": "Impossible de reprendre votre place : le délai pour revenir est écoulé.",
    "code.table_moving": "Cette table passe sur un autre processus du serveur : rien n'a changé. Réessayez dans un instant.",
    "code.wrong_state": "La table ne peut pas faire cela dans son état actuel.",
    "code.not_allowed": "Seuls le créateur de la table et les joueurs assis peuvent le faire.",
    "code.limit_reached": "La limite du serveur est atteinte (trop de tables).",
    "code.invalid_field": "Le serveur n'a pas pu lire cette demande.",
    "net.connected": "Connecté à {url} sous le nom {name}.",
    "net.lost": "Connexion perdue depuis {t:.0f} s ; nouvel essai dans {s:.1f} s (essai {n})…",
    "net.resumed": "Reconnecté : vous retrouvez votre place.",
    "net.rewatch": "Reconnecté : vous regardez de nouveau.",
    "tables.none": "Aucune table publique ouverte. Lancez une partie avec `atout play`, ou créez-en une pour des amis avec `atout create`.",
    "tables.title": "Tables publiques sur {url}",
    "tables.id": "Table",
    "tables.name": "Nom",
    "tables.state": "État",
    "tables.players": "Joueurs",
    "tables.deal": "Donne",
    "tables.watchers": "Spectateurs",
    "tables.more": "Voici les {n} premières tables sur {total} : `atout tables --all` les liste toutes.",
    "tables.join_hint": "Rejoignez-en une avec `atout join TABLE`, ou regardez-la avec `atout watch TABLE`.",
    "create.done": "La table {table} est créée.",
    "create.join": "Vos amis la rejoignent avec :",
    "create.watch": "Les spectateurs la suivent avec :",
    "play.created": "Une nouvelle table avec trois IA (niveau {ai}) est prête ; vous êtes à la place {seat}.",
    "join.done": "Vous êtes à la place {seat} de la table {table}.",
    "join.back": "Vous retrouvez votre place {seat} à la table {table}.",
    "join.other_seat": "Impossible de reprendre votre place {old} ({why}) ; vous êtes maintenant à la place {seat} de la table {table}.",
    "join.why_expired": "le délai pour revenir est écoulé",
    "join.why_taken": "un autre joueur l'occupe",
    "watch.done": "Vous regardez la table {table}. Ctrl-C pour arrêter.",
    "bye": "Au revoir !",
    "bye.seat": "Au revoir ! Une IA joue votre place ; pendant {grace:.0f} s, cette commande vous la rend :",
    "rejoin.title": "Pendant votre absence :",
    "rejoin.moves": "donne {deal} : l'IA a joué {n} {n:p:coup|coups} pour vous : {actions}",
    "rejoin.annulled": "la donne {n} a été annulée ({reason})",
    "rejoin.played_made": "donne {n} : {contract}, preneur {name}, faite de {d:num} ; votre score : {score:num}",
    "rejoin.played_failed": "donne {n} : {contract}, preneur {name}, chutée de {d:num} ; votre score : {score:num}",
    "sum.title": "Donne {n} : résultat",
    "sum.contract": "Contrat",
    "sum.taker": "Preneur",
    "sum.oudlers": "Bouts",
    "sum.oudlers_value": "{n}, donc {target:num} points à faire",
    "sum.points": "Points",
    "sum.points_value": "preneur {p:num}, défense {d:num}",
    "sum.outcome": "Issue",
    "sum.won": "faite de {d:num} {d:p:point|points}",
    "sum.lost": "chutée de {d:num} {d:p:point|points}",
    "sum.base": "Base",
    "sum.base_value": "(25 + {d:num}) × {m} = {total:num}, {side}",
    "sum.petit": "Petit au bout",
    "sum.poignee": "Poignées",
    "sum.chelem": "Chelem",
    "sum.amount": "{total:num}, {side}",
    "sum.for_taker": "pour le preneur",
    "sum.for_defence": "pour la défense",
    "sum.settle": "Bilan",
    "sum.defenders_pay": "chaque défenseur paie {each:num} : le preneur gagne {taker:num}",
    "sum.defenders_win": "chaque défenseur gagne {each:num} : le preneur paie {taker:num}",
    "sum.scores": "Cette donne",
    "sum.total": "Total",
    "sum.standings": "Classement après la donne {n}",
    "sum.standings_before": "Classement avant la donne {n}",
    "sum.final": "Classement final",
    "sum.winner": "Vainqueur : {name} !",
    "sum.winners": "Vainqueurs : {names} !",
    "sum.you_win": "Vous gagnez !",
    "sum.annulled": "La donne {n} est annulée : {reason}. Personne ne marque.",
    "sheet.title": "Feuille de marque",
    "sheet.deal": "Donne",
    "sheet.contract": "Contrat",
    "sheet.taker": "Preneur",
    "sheet.outcome": "Issue",
    "sheet.made": "faite de {d:num}",
    "sheet.failed": "chutée de {d:num}",
    "sheet.annulled": "{n:p:annulée|annulées}",
    "sheet.none": "Aucune donne de cette partie n'est encore terminée.",
    "rev.title": "Donne {n}, pli par pli",
    "rev.trick": "N°",
    "rev.winner": "Gagnant",
    "rev.points": "Points",
    "rev.running": "Total preneur",
    "rev.pile": "+ écart / chien pour le preneur : {points:num}",
    "rev.pile_defence": "+ chien pour la défense (garde contre)",
    "rev.final": "Points du preneur : {points:num} (il en fallait {target:num})",
    "rev.hands": "Mains distribuées",
    "rev.chien": "Chien",
    "rev.none": "Aucune donne terminée à revoir pour l'instant.",
    "rev.no_such": "La donne {n} n'est pas une donne terminée de cette table.",
    "rules.help": "`règles 6` ou `règles THÈME` montre un thème (son numéro, ou son nom, son début ou un de ses mots), `règles R7.5` le thème de la règle.",
    "rules.unknown": "Aucun thème ni règle « {topic} ».",
    "set.show": "Réglages : langue {lang}, vitesse des IA {speed:num} s, après une donne : {pause}.",
    "set.enter": "attendre Entrée",
    "set.help": "Changez-en un avec `set lang en`, `set speed 1,5` (ou fast, normal, slow), `set pause 5` (ou enter). Ils sont gardés pour la prochaine fois.",
    "set.bad": "« {key} {value} » n'est pas un réglage connu.",
    "set.done": "C'est fait ; gardé pour la prochaine fois.",
    "ev.trick_excuse_mine": "Le pli {n} va à {name} ({points:num} {points:p:point|points} ; votre Excuse reste à votre camp) : {cards}",
}


CS: dict[str, str] = {
    "cli.description": "Atout: hrajte francouzský tarot v terminálu proti počítači nebo s přáteli.",
    "cli.epilog": (
        "Bez příkazu spustí `atout` příkaz `play`. Volby můžete psát před příkaz i za něj. "
        "Server je {default}, pokud --server nebo ATOUT_SERVER neurčí jiný; místní server "
        "spustíte příkazem `make serve` (nebo `atout-server serve`)."
    ),
    "cli.server": "adresa serveru, např. ws://127.0.0.1:8765 (proměnná ATOUT_SERVER)",
    "cli.name": "vaše jméno u stolu (proměnná ATOUT_NAME; výchozí: přihlašovací jméno)",
    "cli.lang": "jazyk: en, fr nebo cs (výchozí: ten, který jste zvolili ve hře příkazem `set lang`, jinak podle LANG / LC_ALL)",
    "cli.auto": "všechna rozhodnutí za vás udělá jednoduchý robot",
    "cli.auto_single": "jedinou kartu, kterou smíte zahrát, zahrát bez ptaní",
    "cli.json": "místo stolu vypisovat zprávy protokolu jako řádky JSON",
    "cli.play": "hrát proti třem počítačovým hráčům (nový soukromý stůl)",
    "cli.tables": "vypsat veřejné stoly serveru",
    "cli.all": "vypsat všechny veřejné stoly (všechny stránky), nejen první",
    "cli.join": "přisednout ke stolu (stolu přítele nebo stolu z `atout tables`)",
    "cli.create": "založit stůl pro přátele a vypsat, jak k němu přisednou",
    "cli.watch": "sledovat stůl jako divák",
    "cli.rules": "přečíst si pravidla hry (téma nebo číslo pravidla, např. R7.5)",
    "cli.topic": "téma (viz `atout rules`) nebo číslo pravidla",
    "cli.table_id": "identifikátor stolu (viz `atout tables`, nebo ten, který vám poslal přítel)",
    "cli.seat": "číslo místa 0..3 (výchozí: kterékoli volné)",
    "cli.deals": "počet započítaných rozdání (výchozí 4; rozdání, které nikdo nevezme, se rozdává znovu)",
    "cli.target": "hrát, dokud některý hráč nedosáhne tohoto skóre (místo --deals)",
    "cli.ai": "úroveň počítačových hráčů na volných místech (výchozí {default}; `--ai list` vypíše úrovně serveru)",
    "cli.think": "kolik sekund počítač čeká, než táhne (výchozí: rychlost zvolená ve hře příkazem `set speed`, jinak podle serveru)",
    "cli.pause": "sekundy mezi dvěma rozdáními (výchozí: podle serveru)",
    "cli.timer": "sekundy na tah, než za hráče zahraje počítač (výchozí: limit serveru)",
    "cli.table_name": "název stolu zobrazený v `atout tables`",
    "cli.private": "nezveřejňovat stůl (přátelé potřebují jeho identifikátor)",
    "cli.public": "zveřejnit stůl, aby ho mohli sledovat i ostatní",
    "cli.levels": "Úrovně počítačových hráčů na tomto serveru:",
    "seat.you": "Vy",
    "seat.you_in": "vy",
    "seat.n": "Místo {n}",
    "seat.ai": "Počítač {n}",
    "seat.empty": "(volno)",
    "seat.away": "pryč, hraje počítač",
    "seat.guest": "host",
    "seat.bot": "bot",
    "seat.dealer": "rozdávající",
    "seat.taker": "beroucí",
    "pos.you": "vy",
    "pos.seat": "místo {n}",
    "pos.right": "vpravo",
    "pos.across": "naproti",
    "pos.left": "vlevo",
    "suit.S": "piky",
    "suit.H": "srdce",
    "suit.D": "kára",
    "suit.C": "kříže",
    "suit.T": "trumfy",
    "rank.1": "eso",
    "rank.J": "kluk",
    "rank.C": "jezdec",
    "rank.Q": "dáma",
    "rank.K": "král",
    "card.plain": "{suit} {rank}",
    "card.trump": "trumf {n}",
    "card.petit": "Petit, trumf 1",
    "card.monde": "trumf 21",
    "card.excuse": "Výmluva",
    "contract.pass": "pas",
    "contract.prise": "Prise (×1)",
    "contract.garde": "Garde (×2)",
    "contract.garde_sans": "Garde sans (×4)",
    "contract.garde_contre": "Garde contre (×6)",
    "level.single": "jednoduchá",
    "level.double": "dvojitá",
    "level.triple": "trojitá",
    "level_acc.single": "jednoduchou",
    "level_acc.double": "dvojitou",
    "level_acc.triple": "trojitou",
    "state.waiting": "čeká",
    "state.playing": "hraje se",
    "state.finished": "dohráno",
    "state.closed": "zavřeno",
    "closed.closed": "zavřel ho ten, kdo ho založil",
    "closed.abandoned": "u stolu už nikdo nezůstal",
    "ai.easy": "snadná",
    "ai.normal": "běžná",
    "ai.strong": "silná",
    "ai.random": "náhodná (jakýkoli povolený tah)",
    "ai.heuristic": "heuristická (dřívější název běžné úrovně)",
    "screen.title": "Stůl {table} · rozdání {deal}",
    "screen.title_of": "Stůl {table} · rozdání {deal} z {total}",
    "screen.title_redealt": "Stůl {table} · rozdání {deal} · {scored} z {total} {scored:p:započteno|započtena|započteno}",
    "screen.seat": "Místo",
    "screen.player": "Hráč",
    "screen.bid": "Dražba",
    "screen.won": "Zdvihy",
    "screen.score": "Skóre",
    "screen.cards": "Karty",
    "screen.to_bidding": "◀ draží",
    "screen.to_discard": "◀ odhazuje",
    "screen.to_chelem": "◀ rozhoduje",
    "screen.to_play": "◀ na tahu",
    "screen.led": "vynesl",
    "screen.contract": "Kontrakt: {contract} — beroucí: {taker}",
    "screen.chelem": "Hlášený slam (chelem): {name}",
    "screen.chien": "Chien: {cards}",
    "screen.chien_hidden": "Chien: neukázaný ({contract})",
    "screen.discard_trumps": "Trumfy v odhozu: {cards}",
    "screen.your_discard": "Váš odhoz: {cards}",
    "screen.poignee": "{name}: {level} hrst: {cards}",
    "screen.last_trick": "Poslední zdvih (vítěz: {name}): {cards}",
    "screen.hand": "V ruce máte {n} {n:p:kartu|karty|karet}",
    "screen.hand_legend": "Karty s číslem můžete teď zahrát.",
    "screen.hand_legend_discard": "Karty s číslem smíte odhodit.",
    "screen.trumps": "Trumfy",
    "screen.timer": "Máte {s:.0f} s, pak za vás zahraje počítač.",
    "screen.timer_left": "Zbývá {s} s, pak za vás zahraje počítač.",
    "ev.deal_start": "Rozdání {n} — rozdává: {name}",
    "ev.bid": "{name} hlásí {contract}.",
    "ev.pass": "{name} pasuje.",
    "ev.contract": "{name} je beroucí: {contract}.",
    "ev.chien": "Chien se otáčí: {cards}",
    "ev.discard": "{name} odhazuje šest karet.",
    "ev.discard_trumps": "{name} odhazuje šest karet, z toho {n:p:jeden trumf|trumfy|trumfy}: {cards}.",
    "ev.discard_you": "Odhazujete {cards}.",
    "ev.chelem_yes": "{name} hlásí slam (chelem) a vynáší do prvního zdvihu!",
    "ev.chelem_no": "Slam se nehlásí. Do prvního zdvihu vynáší {name}.",
    "ev.poignee": "{name} ukazuje {level} hrst: {cards}",
    "ev.play": "{name} hraje {card}.",
    "ev.trick": "Zdvih {n} bere {name} ({points:num} {points:p:bod|body|bodů|bodu}): {cards}",
    "ev.trick_excuse": "Zdvih {n} bere {name} ({points:num} {points:p:bod|body|bodů|bodu}; Výmluva zůstává straně, za kterou hraje {owner}): {cards}",
    "ev.bid_you": "Hlásíte {contract}.",
    "ev.pass_you": "Pasujete.",
    "ev.contract_you": "Jste beroucí: {contract}.",
    "ev.chelem_yes_you": "Hlásíte slam (chelem) a vynášíte do prvního zdvihu!",
    "ev.chelem_no_you": "Slam se nehlásí. Do prvního zdvihu vynášíte vy.",
    "ev.poignee_you": "Ukazujete {level} hrst: {cards}",
    "ev.play_you": "Hrajete {card}.",
    "ev.trick_you": "Berete zdvih {n} ({points:num} {points:p:bod|body|bodů|bodu}): {cards}",
    "ev.trick_excuse_you": "Berete zdvih {n} ({points:num} {points:p:bod|body|bodů|bodu}; Výmluva zůstává straně, za kterou hraje {owner}): {cards}",
    "ev.annulled": "Rozdání se ruší: {reason}.",
    "ev.dealt_again": "Do počtu rozdání stolu se nezapočítává: rozdává další hráč.",
    "reason.petit_sec": "jeden hráč má Petit sec, tedy Petit jako jediný trumf a žádnou Výmluvu",
    "reason.all_passed": "všichni pasovali",
    "ev.seat_joined": "{name} si sedá na místo {n}.",
    "ev.seat_ai": "Místo {n} teď hraje počítač.",
    "ev.seat_empty": "Místo {n} je volné.",
    "ev.seat_away": "{name} je bez spojení; do návratu hraje toto místo počítač.",
    "ev.seat_back": "{name} je zpět.",
    "ev.timeout": "Čas vypršel: rozhodl za vás počítač.",
    "ev.ai_for_you": "Počítač za vás zahrál: {action}.",
    "ev.away_actions": "Během vaší nepřítomnosti za vás počítač udělal {n} {n:p:tah|tahy|tahů}: {actions}.",
    "ev.started": "Hra začíná.",
    "ev.finished": "Hra skončila.",
    "ev.closed": "Stůl je zavřený: {reason}.",
    "act.discard": "odhoz",
    "act.chelem_yes": "hlášený slam",
    "act.chelem_no": "bez slamu",
    "act.poignee": "ukázaná hrst",
    "prompt.bid": "Vaše nabídka",
    "prompt.bid_help": "Napište číslo nebo název kontraktu.",
    "prompt.discard": "Váš odhoz",
    "prompt.discard_help": (
        "Vyberte {n} {n:p:kartu|karty|karet} do odhozu: čísla nebo kódy oddělené mezerami."
    ),
    "prompt.discard_required": "Už v odhozu (vyžaduje R5.3): {cards}",
    "prompt.discard_rule_plain": (
        "Máte {n} {n:p:obyčejnou kartu|obyčejné karty|obyčejných karet} (karty v barvách kromě "
        "králů), takže odhodíte šest obyčejných karet: žádný trumf, krále ani bout (R5.2, R5.3)."
    ),
    "prompt.discard_rule_forced": (
        "Máte jen {n} {n:p:obyčejnou kartu|obyčejné karty|obyčejných karet}: všechny jdou do "
        "odhozu a doplníte je trumfy T2 až T20, které uvidí všichni (R5.3, R5.4)."
    ),
    "prompt.discard_confirm": "Stiskněte Enter a tyto karty odhodíte.",
    "prompt.chelem": "Hlásit slam (chelem)? [a/N]",
    "prompt.chelem_help": "Ohlášený slam: pak vynášíte vy a musíte vzít všech 18 zdvihů (+400, jinak −200).",
    "prompt.chelem_confirm": "Opravdu hlásit slam? Ztracený zdvih stojí 200 [a/N]",
    "prompt.poignee": "Ukázat hrst (poignée)?",
    "prompt.poignee_help": (
        "Enter: ne. Číslo: ukázat nabízenou sadu. Nebo napište {size} karet, které chcete ukázat."
    ),
    "prompt.poignee_option": "{i}: {level} — {size} karet, bonus {bonus}: {cards}",
    "prompt.play": "Vaše karta",
    "prompt.play_single": "Vaše karta (Enter: {card}, jediná, kterou smíte zahrát)",
    "prompt.play_help": "Napište číslo nebo kód karty (např. {example}).",
    "prompt.only_card": "{card} je jediná karta, kterou smíte zahrát: hraje se.",
    "prompt.continue": "Enter: pokračovat · r: projít rozdání zdvih po zdvihu",
    "prompt.last_continue": "Enter: konec · r: projít rozdání zdvih po zdvihu",
    "prompt.start": "Čeká se na hráče (sedí {n} ze 4). Napište `start` a hra začne hned, volná místa obsadí počítač.",
    "prompt.lobby": "start, nápověda nebo konec",
    "prompt.lobby_help": "Hra ještě nezačala: `start` ji spustí hned (volná místa obsadí počítač), `konec` odejde.",
    "prompt.idle": "Nejste na tahu, na tahu je {name}. (nápověda: příkazy)",
    "prompt.quit_confirm": "Odejít od stolu? Do vašeho návratu bude vaše místo hrát počítač [a/N]",
    "prompt.see_rule": "Pravidlo {rule} si přečtete příkazem `pravidlo`.",
    "help.commands": (
        "Příkazy: číslo nebo kód karty, když jste na tahu; `stůl` vykreslí stůl a vaše karty; "
        "`přehled [N]` ukáže dohrané rozdání zdvih po zdvihu (poslední, nebo rozdání N); `skóre` "
        "zápis a pořadí; `pravidla [TÉMA]` pravidla; `pravidlo` pravidlo posledního odmítnutí; "
        "`set` nastavení (jazyk, rychlost počítače, pauza po rozdání); `start` spustí čekající "
        "stůl; `nápověda`; `konec`. Fungují i anglické příkazy (table, review, score, rules, "
        "help, quit)."
    ),
    "help.codes": (
        "Kódy karet: barva S (piky), H (srdce), D (kára), C (kříže) a hodnota 1..10, J (kluk), "
        "C (jezdec), Q (dáma), K (král) — např. H10, SK, DC; trumfy T1..T21; Výmluva EX. "
        "Velká i malá písmena."
    ),
    "yes.words": "a,ano,y,yes,o,oui",
    "no.words": "n,ne,no,non",
    "err.empty": "Napište něco (nápověda: `nápověda`).",
    "err.unknown": "„{text}“ není kód karty ani číslo ze seznamu.",
    "err.number": "Číslo {n} v seznamu není: vyberte 1 až {max}.",
    "err.not_in_hand": "{card} v ruce nemáte.",
    "err.bid": "„{text}“ teď hlásit nelze. Vyberte z: {options}.",
    "err.bid_low": "{contract} nestačí: nabídka musí být vyšší než dosud nejvyšší (R4.2). Vyberte z: {options}.",
    "err.yes_no": "Odpovězte a (ano), nebo n (ne).",
    "err.illegal_play": "{card} zahrát nemůžete: {why}",
    "why.follow": "musíte přiznat barvu, tedy {suit}, protože je máte (R7.5).",
    "why.trump": "{suit} nemáte, musíte tedy hrát trumf (R7.5).",
    "why.trump_led": "vynesly se trumfy a vy je máte: musíte hrát trumf (R7.5).",
    "why.overtrump": "musíte přebít {card}, protože máte vyšší trumf: {cards} (R7.6).",
    "why.generic": "pravidla to teď nedovolují ({rule}).",
    "why.legal": "Zahrát můžete: {cards}.",
    "err.discard_count": "Odhoz má přesně {count} karet, ne {n}.",
    "err.discard_twice": "{card} je zadaná dvakrát.",
    "err.discard_never": "{card} nelze odhodit nikdy: králové a bouty do odhozu nepatří (R5.2).",
    "err.discard_trump": "{card} je trumf: se šesti a více obyčejnými kartami se trumfy neodhazují (R5.3).",
    "err.discard_not_choice": "{card} nemůže doplnit odhoz: smějí jen obyčejné karty a trumfy T2 až T20 (R5.3).",
    "err.poignee_size": "Hrst ({level}) má přesně {size} karet, ne {n}.",
    "err.poignee_card": "{card} ukázat nelze: hrst ukazuje jen trumfy a Výmluvu z vaší ruky (R6.4).",
    "err.poignee_excuse": "Výmluva smí nahradit trumf, jen když ukazujete všechny své trumfy (R6.4).",
    "err.server": "Server odmítl: {message}",
    "err.rule": "(pravidlo {rule})",
    "err.no_table": "Otevřený stůl „{table}“ neexistuje. `atout tables` vypíše veřejné stoly.",
    "err.full": "U stolu {table} už sedí čtyři hráči.",
    "err.seat_taken": "Toto místo má jiný hráč; zkuste jiné --seat, nebo žádné.",
    "err.which_seat": "U stolu {table} máte pod jménem {name} místa {seats}: vyberte jedno pomocí --seat.",
    "err.connect": "Server {url} není dostupný: {error}",
    "err.connect_hint": "Běží server? Spustíte ho příkazem `make serve` (nebo `atout-server serve`), případně zadejte --server.",
    "err.version": "Server nemluví verzí protokolu tohoto klienta ({error}).",
    "err.replaced": "Vaše místo převzalo jiné připojení (vy odjinud).",
    "err.gave_up": "K serveru se nedaří znovu připojit už dvě minuty; končím.",
    "err.moving": "Stůl se stěhuje do jiného procesu serveru; zkouším to znovu.",
    "err.bad_url": "„{url}“ není adresa WebSocket (ws://počítač:port nebo wss://počítač).",
    "code.not_your_turn": "Nejste na tahu.",
    "code.wrong_phase": "Rozdání teď čeká na něco jiného.",
    "code.illegal_action": "Pravidla tento tah nedovolují.",
    "code.not_seated": "U tohoto stolu už nemáte místo.",
    "code.not_your_seat": "To není vaše místo.",
    "code.storage_unavailable": "Server teď nemůže ukládat; nic se nezměnilo. Zkuste to za chvíli znovu.",
    "code.rate_limited": "Příliš mnoho zpráv najednou; trochu zpomalte.",
    "code.shutting_down": "Server se vypíná.",
    "code.internal": "Na serveru nastala chyba; nic se nezměnilo.",
    "code.no_such_table": "Tento stůl už není otevřený.",
    "code.bad_token": "Místo už vzít zpět nelze: čas na návrat vypršel.",
    "code.table_moving": "Stůl se stěhuje do jiného procesu serveru: nic se nezměnilo. Zkuste to za chvíli znovu.",
    "code.wrong_state": "Ve svém nynějším stavu to stůl neumí.",
    "code.not_allowed": "To smí jen ten, kdo stůl založil, nebo hráč, který u něj sedí.",
    "code.limit_reached": "Server dosáhl svého limitu (příliš mnoho stolů).",
    "code.invalid_field": "Server tomuto požadavku nerozuměl.",
    "net.connected": "Připojeno k {url} jako {name}.",
    "net.lost": "Bez spojení {t:.0f} s; další pokus za {s:.1f} s (pokus č. {n})…",
    "net.resumed": "Znovu připojeno: vaše místo je zpět.",
    "net.rewatch": "Znovu připojeno: opět sledujete.",
    "tables.none": "Žádný veřejný stůl není otevřený. Hru začnete příkazem `atout play`, stůl pro přátele založíte příkazem `atout create`.",
    "tables.title": "Veřejné stoly na {url}",
    "tables.id": "Stůl",
    "tables.name": "Název",
    "tables.state": "Stav",
    "tables.players": "Hráči",
    "tables.deal": "Rozdání",
    "tables.watchers": "Diváci",
    "tables.more": "Vypsáno prvních {n} z {total} stolů; všechny vypíše `atout tables --all`.",
    "tables.join_hint": "Přisedněte příkazem `atout join STŮL`, nebo sledujte příkazem `atout watch STŮL`.",
    "create.done": "Stůl {table} je založený.",
    "create.join": "Přátelé přisednou příkazem:",
    "create.watch": "Diváci ho sledují příkazem:",
    "play.created": "Nový stůl se třemi počítačovými hráči (úroveň: {ai}) je připravený; sedíte na místě {seat}.",
    "join.done": "Sedíte na místě {seat} u stolu {table}.",
    "join.back": "Jste zpět na místě {seat} u stolu {table}.",
    "join.other_seat": "Vaše místo {old} už vzít zpět nelze ({why}); teď sedíte na místě {seat} u stolu {table}.",
    "join.why_expired": "čas na návrat vypršel",
    "join.why_taken": "sedí tam teď jiný hráč",
    "watch.done": "Sledujete stůl {table}. Ctrl-C sledování ukončí.",
    "bye": "Na shledanou!",
    "bye.seat": "Na shledanou! Vaše místo hraje počítač; do {grace:.0f} s vám ho vrátí tento příkaz:",
    "rejoin.title": "Během vaší nepřítomnosti:",
    "rejoin.moves": "rozdání {deal}: počítač za vás udělal {n} {n:p:tah|tahy|tahů}: {actions}",
    "rejoin.annulled": "rozdání {n} se zrušilo: {reason}",
    "rejoin.played_made": "rozdání {n}: {contract}, beroucí {name}, splněno o {d:num}; vaše skóre {score:num}",
    "rejoin.played_failed": "rozdání {n}: {contract}, beroucí {name}, nesplněno o {d:num}; vaše skóre {score:num}",
    "sum.title": "Rozdání {n}: výsledek",
    "sum.contract": "Kontrakt",
    "sum.taker": "Beroucí",
    "sum.oudlers": "Bouty",
    "sum.oudlers_value": "{n}, potřeba je tedy {target:num} {target:p:bod|body|bodů|bodu}",
    "sum.points": "Body karet",
    "sum.points_value": "beroucí {p:num}, obránci {d:num}",
    "sum.outcome": "Výsledek",
    "sum.won": "splněno o {d:num} {d:p:bod|body|bodů|bodu}",
    "sum.lost": "nesplněno o {d:num} {d:p:bod|body|bodů|bodu}",
    "sum.base": "Základ",
    "sum.base_value": "(25 + {d:num}) × {m} = {total:num}, {side}",
    "sum.petit": "Petit au bout",
    "sum.poignee": "Hrsti",
    "sum.chelem": "Slam (chelem)",
    "sum.amount": "{total:num}, {side}",
    "sum.for_taker": "pro beroucího",
    "sum.for_defence": "pro obránce",
    "sum.settle": "Vyúčtování",
    "sum.defenders_pay": "každý obránce platí {each:num}: beroucí získává {taker:num}",
    "sum.defenders_win": "každý obránce získává {each:num}: beroucí platí {taker:num}",
    "sum.scores": "Toto rozdání",
    "sum.total": "Celkem",
    "sum.standings": "Pořadí po rozdání {n}",
    "sum.standings_before": "Pořadí před rozdáním {n}",
    "sum.final": "Konečné pořadí",
    "sum.winner": "Vítěz: {name}!",
    "sum.winners": "Vítězové: {names}!",
    "sum.you_win": "Vyhráváte!",
    "sum.annulled": "Rozdání {n} se zrušilo: {reason}. Nikdo nic nezapisuje.",
    "sheet.title": "Zápis",
    "sheet.deal": "Rozdání",
    "sheet.contract": "Kontrakt",
    "sheet.taker": "Beroucí",
    "sheet.outcome": "Výsledek",
    "sheet.made": "splněno o {d:num}",
    "sheet.failed": "nesplněno o {d:num}",
    "sheet.annulled": "{n:p:zrušeno|zrušena|zrušeno}",
    "sheet.none": "V této sérii ještě žádné rozdání neskončilo.",
    "rev.title": "Rozdání {n}, zdvih po zdvihu",
    "rev.trick": "č.",
    "rev.winner": "Bere",
    "rev.points": "Body",
    "rev.running": "Beroucí celkem",
    "rev.pile": "+ odhoz / chien pro beroucího: {points:num}",
    "rev.pile_defence": "+ chien pro obránce (Garde contre)",
    "rev.final": "Body karet beroucího: {points:num} (potřeba {target:num})",
    "rev.hands": "Rozdané karty",
    "rev.chien": "Chien",
    "rev.none": "Zatím není žádné dohrané rozdání.",
    "rev.no_such": "Rozdání {n} není dohrané rozdání tohoto stolu.",
    "rules.help": "`pravidla 6` nebo `pravidla TÉMA` ukáže téma (jeho číslo, nebo název, jeho začátek či jedno jeho slovo), `pravidla R7.5` téma daného pravidla.",
    "rules.unknown": "Téma ani pravidlo „{topic}“ neexistuje.",
    "set.show": "Nastavení: jazyk {lang}, rychlost počítače {speed:num} s, po rozdání: {pause}.",
    "set.enter": "čekat na Enter",
    "set.help": "Změníte ho například `set lang fr`, `set speed 1,5` (nebo fast, normal, slow), `set pause 5` (nebo enter). Nastavení se zapamatuje i pro příště.",
    "set.bad": "„{key} {value}“ není známé nastavení.",
    "set.done": "Hotovo; zapamatováno i pro příště.",
    "ev.trick_excuse_mine": "Zdvih {n} bere {name} ({points:num} {points:p:bod|body|bodů|bodu}; vaše Výmluva zůstává vaší straně): {cards}",
}

# Czech card names agree with the rank: "srdcový král", "srdcová dáma", "srdcové eso".
CS_RANKS: dict[str, tuple[str, str]] = {
    "1": ("eso", "n"),
    "2": ("dvojka", "f"),
    "3": ("trojka", "f"),
    "4": ("čtyřka", "f"),
    "5": ("pětka", "f"),
    "6": ("šestka", "f"),
    "7": ("sedmička", "f"),
    "8": ("osmička", "f"),
    "9": ("devítka", "f"),
    "10": ("desítka", "f"),
    "J": ("kluk", "m"),
    "C": ("jezdec", "m"),
    "Q": ("dáma", "f"),
    "K": ("král", "m"),
}
CS_SUIT_STEMS = {"S": "pikov", "H": "srdcov", "D": "károv", "C": "křížov"}
CS_ENDINGS = {"m": "ý", "f": "á", "n": "é"}

# argparse's own words (`usage:`, `options`, errors), translated where argparse allows.
ARGPARSE: dict[str, dict[str, str]] = {
    "fr": {
        "usage: ": "utilisation : ",
        "positional arguments": "arguments",
        "options": "options",
        "show this help message and exit": "afficher cette aide et quitter",
        "%(prog)s: error: %(message)s\n": "%(prog)s : erreur : %(message)s\n",
        "invalid choice: %(value)r (choose from %(choices)s)": "choix invalide : %(value)r (choisir parmi %(choices)s)",
        "unrecognized arguments: %s": "arguments non reconnus : %s",
        "the following arguments are required: %s": "arguments obligatoires manquants : %s",
        "expected one argument": "une valeur est attendue",
        "invalid %(type)s value: %(value)r": "valeur invalide : %(value)r",
        "not allowed with argument %s": "impossible avec l'argument %s",
        "argument %(argument_name)s: %(message)s": "argument %(argument_name)s : %(message)s",
    },
    "cs": {
        "usage: ": "použití: ",
        "positional arguments": "argumenty",
        "options": "volby",
        "show this help message and exit": "zobrazit tuto nápovědu a skončit",
        "%(prog)s: error: %(message)s\n": "%(prog)s: chyba: %(message)s\n",
        "invalid choice: %(value)r (choose from %(choices)s)": "neplatná volba: %(value)r (vyberte z %(choices)s)",
        "unrecognized arguments: %s": "neznámé argumenty: %s",
        "the following arguments are required: %s": "chybí povinné argumenty: %s",
        "expected one argument": "očekává se jedna hodnota",
        "invalid %(type)s value: %(value)r": "neplatná hodnota: %(value)r",
        "not allowed with argument %s": "nelze použít s argumentem %s",
        "argument %(argument_name)s: %(message)s": "argument %(argument_name)s: %(message)s",
    },
}
ARGPARSE["en"] = {k: k for k in ARGPARSE["fr"]}


def translate_argparse(tr: Tr) -> None:
    """Make argparse print its own headings and errors in ``tr``'s language (argparse looks
    its words up through the module's ``_`` at run time)."""
    words = ARGPARSE.get(tr.lang, {})
    argparse._ = lambda text: words.get(text, text)  # type: ignore[attr-defined]


MESSAGES: dict[str, dict[str, str]] = {"en": EN, "fr": FR, "cs": CS}
for _lang, _texts in ACCOUNT_TEXTS.items():  # the account commands' texts (account_texts.py)
    MESSAGES[_lang].update(_texts)
for _lang, _texts in EXTRA_TEXTS.items():  # names, refusals by field, ... (extra_texts.py)
    MESSAGES[_lang].update(_texts)


def detect_language(environ: dict[str, str] | None = None) -> str:
    """The language from the POSIX locale variables (LC_ALL, LC_MESSAGES, LANG), else English."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        if not value:
            continue
        for part in value.split(":"):
            code = part.split(".")[0].split("_")[0].split("-")[0].lower()
            if code in MESSAGES:
                return code
        if var != "LANGUAGE":
            return "en"  # a set locale we do not translate (e.g. de_DE, C.UTF-8)
    return "en"


def plural_form(lang: str, n: float, forms: list[str]) -> str:
    """The word form for the number ``n``: English and French two forms (French singular
    below 2: "1,5 point"), Czech three (1 bod, 2 body, 5 bodů) and a fourth for fractions
    ("2,5 bodu") when given."""
    whole = float(n) == int(n)
    if lang == "cs":
        if not whole:
            return forms[3] if len(forms) > 3 else forms[-1]
        k = abs(int(n))
        if k == 1:
            return forms[0]
        return forms[1] if 2 <= k <= 4 else forms[2]
    if lang == "fr":
        return forms[0] if abs(float(n)) < 2 else forms[1]
    return forms[0] if float(n) == 1 else forms[1]


def format_number(lang: str, x: float) -> str:
    """A number as it is written in ``lang``: halves with a decimal comma in French and Czech,
    a real minus sign."""
    x = float(x)
    text = str(int(x)) if x == int(x) else f"{x:.1f}"
    if lang in ("fr", "cs"):
        text = text.replace(".", ",")
    return text.replace("-", "−")


class _Formatter(string.Formatter):
    """``{n:p:card|cards}`` picks the plural form for ``n``; ``{n:num}`` writes a number the
    language's way; anything else is ``str.format``'s own."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec.startswith("p:"):
            return plural_form(self.lang, float(value), format_spec[2:].split("|"))
        if format_spec == "num":
            return format_number(self.lang, float(value))
        return super().format_field(value, format_spec)


class Tr:
    """Translator for one language."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in MESSAGES else "en"
        self.table = MESSAGES[self.lang]
        self.missing: set[str] = set()
        # Tests (and translators) set ATOUT_I18N_STRICT=1 to fail loudly on a missing key.
        self.strict = bool(os.environ.get("ATOUT_I18N_STRICT"))
        self.formatter = _Formatter(self.lang)

    def __call__(self, key: str, /, **kw: Any) -> str:
        template = self.table.get(key)
        if template is None:
            self.missing.add(key)
            if self.strict:
                raise KeyError(f"no {self.lang} translation for {key!r}")
            template = EN.get(key, key)
        return self.formatter.format(template, **kw) if kw else template

    def num(self, x: float) -> str:
        return format_number(self.lang, x)

    # ------------------------------------------------------------------ cards and contracts

    def card_name(self, code: str) -> str:
        """The card's name in words (``king of hearts``, ``roi de cœur``, ``srdcový král``)."""
        if code == C.EXCUSE:
            return self("card.excuse")
        if code == "T1":
            return self("card.petit")
        if code == "T21":
            return self("card.monde")
        s = C.suit(code)
        if s == C.TRUMP:
            return self("card.trump", n=code[1:])
        r = C.rank(code)
        if self.lang == "cs":
            word, gender = CS_RANKS[r]
            return self("card.plain", rank=word, suit=CS_SUIT_STEMS[s] + CS_ENDINGS[gender])
        rank = self(f"rank.{r}") if r in ("1", "J", "C", "Q", "K") else r
        return self("card.plain", rank=rank, suit=self(f"suit.{s}"))

    def contract(self, name: str | None) -> str:
        return self(f"contract.{name}") if name else "—"

    def contract_short(self, name: str | None) -> str:
        """The contract without its multiplier (``garde``)."""
        return self.contract(name).split(" (")[0]

    def yes_words(self) -> set[str]:
        return set(self("yes.words").split(","))

    def no_words(self) -> set[str]:
        return set(self("no.words").split(","))
