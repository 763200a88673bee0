"""Translations of every message the client prints: English, French and Czech.

:data:`MESSAGES` maps a language to ``key -> str.format template``. Every language has every key
(a test checks it). :class:`Tr` looks keys up; a key missing in a language falls back to English
and is remembered in :attr:`Tr.missing` (tests assert it stays empty).
"""

from __future__ import annotations

import os
import string
from typing import Any

from . import cards as C

LANGUAGES = ("en", "fr", "cs")

EN: dict[str, str] = {
    # --- command line
    "cli.description": "Atout: play French Tarot in your terminal against AI players or friends.",
    "cli.epilog": (
        "Without a command, `atout` runs `play`. The server is {default} unless --server or "
        "ATOUT_SERVER says otherwise. Start a local one with `atout-server serve`."
    ),
    "cli.server": "server URL, e.g. ws://127.0.0.1:8765 (env ATOUT_SERVER)",
    "cli.name": "your display name (env ATOUT_NAME; default: your login)",
    "cli.lang": "language: en, fr or cs (default: from LANG / LC_ALL)",
    "cli.auto": "let a simple bot make every decision for you",
    "cli.json": "print the protocol messages as JSON lines instead of the table",
    "cli.play": "play a game against three AI players (a new private table)",
    "cli.tables": "list the public tables of the server",
    "cli.join": "take a seat at a table (a friend's table, or one from `atout tables`)",
    "cli.create": "create a table for friends and print how they join",
    "cli.watch": "follow a table as a spectator",
    "cli.table_id": "the table id (see `atout tables`, or the one your friend printed)",
    "cli.seat": "seat number 0..3 (default: any free seat)",
    "cli.deals": "number of deals to play (default 4)",
    "cli.target": "play until a player reaches this score (instead of --deals)",
    "cli.ai": "AI level for the empty seats: random, heuristic or strong (default {default})",
    "cli.think": "seconds an AI waits before acting (default: the server's)",
    "cli.pause": "seconds between two deals (default: the server's)",
    "cli.timer": "seconds a player has to act before the AI plays for them (default: no limit)",
    "cli.table_name": "the table's name shown in `atout tables`",
    "cli.private": "do not list the table publicly (friends need its id to join)",
    "cli.public": "list the table publicly so that others can watch it",
    # --- people and seats
    "seat.you": "You",
    "seat.n": "Seat {n}",
    "seat.ai": "AI {n}",
    "seat.empty": "(empty)",
    "seat.away": "away, AI plays",
    "seat.dealer": "dealer",
    "seat.taker": "taker",
    # --- cards
    "suit.S": "spades",
    "suit.H": "hearts",
    "suit.D": "diamonds",
    "suit.C": "clubs",
    "suit.T": "trumps",
    "rank.J": "jack",
    "rank.C": "knight",
    "rank.Q": "queen",
    "rank.K": "king",
    "card.plain": "{rank} of {suit}",
    "card.trump": "trump {n}",
    "card.petit": "the Petit (trump 1)",
    "card.monde": "the 21 of trumps",
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
    "state.waiting": "waiting",
    "state.playing": "playing",
    "state.finished": "finished",
    "state.closed": "closed",
    # --- table screen
    "screen.title": "Table {table} · deal {deal}",
    "screen.title_of": "Table {table} · deal {deal} of {total}",
    "screen.seat": "Seat",
    "screen.player": "Player",
    "screen.bid": "Bid",
    "screen.trick": "Trick {n}",
    "screen.won": "Tricks",
    "screen.score": "Score",
    "screen.cards": "Cards",
    "screen.to_act": "◀ to act",
    "screen.led": "led",
    "screen.contract": "Contract: {contract} — taker: {taker}",
    "screen.chelem": "Chelem announced by {name}",
    "screen.chien": "Chien: {cards}",
    "screen.chien_hidden": "Chien: not shown ({contract})",
    "screen.discard_trumps": "Trumps in the discard: {cards}",
    "screen.your_discard": "Your discard: {cards}",
    "screen.poignee": "{name}: {level} poignée: {cards}",
    "screen.last_trick": "Last trick (won by {name}): {cards}",
    "screen.hand": "Your hand ({n} cards)",
    "screen.hand_legend": "Cards with a number are the ones you may play now.",
    "screen.hand_legend_discard": "Cards with a number may go to the discard.",
    "screen.trumps": "Trumps",
    "screen.spectator": "You are watching this table.",
    "screen.waiting_for": "Waiting for {name}…",
    "screen.timer": "You have {s:.0f} s before the AI plays for you.",
    # --- narration of events
    "ev.deal_start": "Deal {n} — dealer: {name}",
    "ev.bid": "{name} bids {contract}.",
    "ev.pass": "{name} passes.",
    "ev.contract": "{name} takes: {contract}.",
    "ev.chien": "The chien is shown: {cards}",
    "ev.discard": "{name} has discarded six cards.",
    "ev.discard_trumps": "{name} has discarded six cards, including the trumps {cards}.",
    "ev.discard_you": "You discarded {cards}.",
    "ev.chelem_yes": "{name} announces a chelem and leads the first trick!",
    "ev.chelem_no": "No chelem. {name} leads the first trick.",
    "ev.poignee": "{name} shows a {level} poignée: {cards}",
    "ev.play": "{name} plays {card}.",
    "ev.trick": "Trick {n} goes to {name} ({points} points): {cards}",
    "ev.bid_you": "You bid {contract}.",
    "ev.pass_you": "You pass.",
    "ev.contract_you": "You take: {contract}.",
    "ev.chelem_yes_you": "You announce a chelem and lead the first trick!",
    "ev.chelem_no_you": "No chelem. You lead the first trick.",
    "ev.poignee_you": "You show a {level} poignée: {cards}",
    "ev.play_you": "You play {card}.",
    "ev.trick_you": "You win trick {n} ({points} points): {cards}",
    "ev.annulled": "The deal is annulled: {reason}.",
    "reason.petit_sec": "petit sec (a player holds the Petit and no other trump)",
    "reason.all_passed": "everybody passed",
    "ev.seat_joined": "{name} sits at seat {n}.",
    "ev.seat_ai": "An AI now plays seat {n}.",
    "ev.seat_empty": "Seat {n} is free.",
    "ev.seat_away": "{name} lost the connection; the AI stands in until they are back.",
    "ev.seat_back": "{name} is back.",
    "ev.timeout": "Time is up: the AI decided for you.",
    "ev.started": "The game starts.",
    "ev.finished": "The game is over.",
    "ev.closed": "The table is closed ({reason}).",
    "ev.restarted": "A new series starts.",
    # --- prompts
    "prompt.bid": "Your bid",
    "prompt.bid_help": "Type a number or a contract name.",
    "prompt.discard": "Your discard",
    "prompt.discard_help": (
        "Choose {n} cards to put in the discard: their numbers or codes, separated by spaces."
    ),
    "prompt.discard_required": "Already in the discard (required by R5.3): {cards}",
    "prompt.discard_rule_plain": (
        "You hold {n} plain cards (cards of a suit that are not kings), so the discard is six "
        "plain cards: no trump, no king, no oudler (R5.2, R5.3)."
    ),
    "prompt.discard_rule_forced": (
        "You hold only {n} plain cards: they all go to the discard, completed with trumps from "
        "T2..T20, which everybody will see (R5.3, R5.4)."
    ),
    "prompt.discard_confirm": "Press Enter to discard these cards.",
    "prompt.chelem": "Announce a chelem? You then lead and must win all 18 tricks (+400, else −200) [y/N]",
    "prompt.poignee": "Show a poignée?",
    "prompt.poignee_help": (
        "Enter: no. A number: show that default set. Or type the {size} cards you want to show."
    ),
    "prompt.poignee_option": "{i}: {level} — {size} cards, bonus {bonus}: {cards}",
    "prompt.play": "Your card",
    "prompt.play_help": "Type the card's number or code (e.g. {example}).",
    "prompt.continue": "Enter: continue · r: review the deal trick by trick",
    "prompt.last_continue": "Enter: finish · r: review the deal trick by trick",
    "prompt.start": "Waiting for players ({n}/4 seated). Type `start` to start now with AI players in the empty seats.",
    "prompt.idle": "Not your turn: waiting for {name}. (help: commands)",
    "help.commands": (
        "Commands: a number or card code at your turn; `table` redraws the table; `review` shows "
        "the last finished deal trick by trick; `score` shows the standings; `help`; `quit`."
    ),
    "help.codes": (
        "Card codes: suit letter S (spades), H (hearts), D (diamonds), C (clubs) and rank "
        "1..10, J, C (knight), Q, K — e.g. H10, SK, DC; trumps T1..T21; the Excuse EX. "
        "Upper or lower case."
    ),
    "yes": "y",
    "yes.words": "y,yes,o,oui,a,ano",
    "no.words": "n,no,non,ne",
    # --- refusals
    "err.empty": "Please type something (help: `help`).",
    "err.unknown": "“{text}” is not a card code or a number from the list.",
    "err.number": "There is no number {n} in the list: choose 1 to {max}.",
    "err.not_in_hand": "{card} is not in your hand.",
    "err.bid": "“{text}” is not a bid you can make now. Choose one of: {options}.",
    "err.bid_low": "{contract} is not enough: a bid must be higher than the highest so far (R4.2).",
    "err.yes_no": "Please answer y (yes) or n (no).",
    "err.illegal_play": "You may not play {card}: {why}",
    "why.follow": "you must follow {suit} since you have some (R7.5).",
    "why.trump": "you have no {suit}, so you must play a trump (R7.5).",
    "why.trump_led": "trumps were led and you have some: you must play a trump (R7.5).",
    "why.overtrump": "you must play a trump higher than {card} since you have one: {cards} (R7.6).",
    "why.generic": "{message} ({rule}).",
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
    "err.server_rule": "The server refused ({rule}): {message}",
    "err.no_table": "There is no open table “{table}”. `atout tables` lists the public ones.",
    "err.full": "Table {table} has four players already.",
    "err.seat_taken": "That seat is taken by another player; try another --seat or none.",
    "err.connect": "Cannot reach the server at {url}: {error}",
    "err.connect_hint": "Is the server running? Start one with `atout-server serve`, or give --server.",
    "err.version": "The server does not speak this client's protocol version ({error}).",
    "err.replaced": "Your seat was taken over by another connection (the same player elsewhere).",
    "err.gave_up": "Could not reconnect to the server; giving up.",
    "err.bad_url": "“{url}” is not a WebSocket URL (ws://host:port or wss://host).",
    # --- connection
    "net.connected": "Connected to {url} as {name}.",
    "net.lost": "Connection lost; reconnecting in {s:.1f} s (attempt {n})…",
    "net.resumed": "Reconnected: your seat is back.",
    "net.rewatch": "Reconnected: watching again.",
    "net.closed": "The server closed the connection ({reason}).",
    # --- lobby
    "tables.none": "No public table is open. Start a game with `atout play`, or `atout create` one for friends.",
    "tables.title": "Public tables on {url}",
    "tables.id": "Table",
    "tables.name": "Name",
    "tables.state": "State",
    "tables.players": "Players",
    "tables.deal": "Deal",
    "tables.watchers": "Watchers",
    "tables.join_hint": "Join one with `atout join TABLE`, or watch it with `atout watch TABLE`.",
    "create.done": "Table {table} is created.",
    "create.join": "Friends join it with:",
    "create.watch": "Spectators follow it with:",
    "play.created": "A new table with three AI players ({ai}) is ready; you sit at seat {seat}.",
    "join.done": "You sit at seat {seat} of table {table}.",
    "watch.done": "You are watching table {table}. Ctrl-C to stop.",
    "bye": "Bye!",
    "bye.seat": "Bye! An AI plays your seat; within {grace:.0f} s `{command}` gives it back to you.",
    # --- end of deal
    "sum.title": "Deal {n}: result",
    "sum.contract": "Contract",
    "sum.taker": "Taker",
    "sum.oudlers": "Oudlers",
    "sum.target": "Points needed",
    "sum.points": "Taker's points",
    "sum.defence": "Defence's points",
    "sum.outcome": "Outcome",
    "sum.won": "made by {d}",
    "sum.lost": "failed by {d}",
    "sum.base": "Base (25 + difference) × multiplier",
    "sum.petit": "Petit au bout",
    "sum.poignee": "Poignées",
    "sum.chelem": "Chelem",
    "sum.per_defender": "Per defender",
    "sum.scores": "This deal",
    "sum.total": "Total",
    "sum.standings": "Standings after deal {n}",
    "sum.final": "Final standings",
    "sum.winner": "Winner: {name}!",
    "sum.winners": "Winners: {names}!",
    "sum.annulled": "Deal {n} was annulled ({reason}): nobody scores.",
    "rev.title": "Deal {n}, trick by trick",
    "rev.trick": "#",
    "rev.winner": "Winner",
    "rev.points": "Points",
    "rev.running": "Taker's total",
    "rev.pile": "+ discard / chien for the taker: {points}",
    "rev.pile_defence": "+ chien for the defence (garde contre)",
    "rev.final": "Taker's card points: {points} (needed {target})",
    "rev.hands": "Hands as dealt",
    "rev.chien": "Chien",
    "rev.none": "No finished deal to review yet.",
    "ev.ai_for_you": "The AI played for you: {action}.",
    "ev.away_actions": "While you were away, the AI made {n} {n:p:move|moves} for you: {actions}.",
    "act.discard": "the discard",
    "act.chelem_yes": "a chelem announced",
    "act.chelem_no": "no chelem",
    "act.poignee": "a poignée shown",
    "join.back": "You are back at seat {seat} of table {table}.",
    "join.other_seat": "Your seat {old} could not be taken back ({why}); you now sit at seat {seat} of table {table}.",
    "join.why_expired": "the time to come back had run out",
    "join.why_taken": "another player sits there now",
    "err.which_seat": "At table {table} you hold seats {seats} under the name {name}: say which one with --seat.",
}

FR: dict[str, str] = {
    "cli.description": "Atout : jouez au tarot dans votre terminal contre des IA ou entre amis.",
    "cli.epilog": (
        "Sans commande, `atout` lance `play`. Le serveur est {default} sauf si --server ou "
        "ATOUT_SERVER en indiquent un autre. Démarrez-en un en local avec `atout-server serve`."
    ),
    "cli.server": "adresse du serveur, p. ex. ws://127.0.0.1:8765 (variable ATOUT_SERVER)",
    "cli.name": "votre nom affiché (variable ATOUT_NAME ; par défaut : votre identifiant)",
    "cli.lang": "langue : en, fr ou cs (par défaut : selon LANG / LC_ALL)",
    "cli.auto": "laisser un robot simple prendre toutes les décisions à votre place",
    "cli.json": "afficher les messages du protocole en lignes JSON au lieu de la table",
    "cli.play": "jouer une partie contre trois IA (nouvelle table privée)",
    "cli.tables": "lister les tables publiques du serveur",
    "cli.join": "prendre place à une table (celle d'un ami ou une de `atout tables`)",
    "cli.create": "créer une table pour des amis et afficher comment la rejoindre",
    "cli.watch": "suivre une table en spectateur",
    "cli.table_id": "l'identifiant de la table (voir `atout tables`, ou celui donné par votre ami)",
    "cli.seat": "numéro de place 0..3 (par défaut : une place libre)",
    "cli.deals": "nombre de donnes à jouer (4 par défaut)",
    "cli.target": "jouer jusqu'à ce qu'un joueur atteigne ce score (au lieu de --deals)",
    "cli.ai": "niveau des IA aux places vides : random, heuristic ou strong (défaut {default})",
    "cli.think": "secondes de réflexion d'une IA avant de jouer (défaut : celui du serveur)",
    "cli.pause": "secondes entre deux donnes (défaut : celui du serveur)",
    "cli.timer": "secondes accordées à un joueur avant que l'IA joue pour lui (défaut : illimité)",
    "cli.table_name": "le nom de la table affiché par `atout tables`",
    "cli.private": "ne pas lister la table publiquement (les amis ont besoin de son identifiant)",
    "cli.public": "lister la table publiquement pour que d'autres puissent la regarder",
    "seat.you": "Vous",
    "seat.n": "Place {n}",
    "seat.ai": "IA {n}",
    "seat.empty": "(libre)",
    "seat.away": "absent, l'IA joue",
    "seat.dealer": "donneur",
    "seat.taker": "preneur",
    "suit.S": "pique",
    "suit.H": "cœur",
    "suit.D": "carreau",
    "suit.C": "trèfle",
    "suit.T": "atouts",
    "rank.J": "valet",
    "rank.C": "cavalier",
    "rank.Q": "dame",
    "rank.K": "roi",
    "card.plain": "{rank} de {suit}",
    "card.trump": "atout {n}",
    "card.petit": "le Petit (atout 1)",
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
    "state.waiting": "en attente",
    "state.playing": "en jeu",
    "state.finished": "terminée",
    "state.closed": "fermée",
    "screen.title": "Table {table} · donne {deal}",
    "screen.title_of": "Table {table} · donne {deal} sur {total}",
    "screen.seat": "Place",
    "screen.player": "Joueur",
    "screen.bid": "Enchère",
    "screen.trick": "Pli {n}",
    "screen.won": "Plis",
    "screen.score": "Score",
    "screen.cards": "Cartes",
    "screen.to_act": "◀ à jouer",
    "screen.led": "entame",
    "screen.contract": "Contrat : {contract} — preneur : {taker}",
    "screen.chelem": "Chelem annoncé par {name}",
    "screen.chien": "Chien : {cards}",
    "screen.chien_hidden": "Chien : non montré ({contract})",
    "screen.discard_trumps": "Atouts écartés : {cards}",
    "screen.your_discard": "Votre écart : {cards}",
    "screen.poignee": "{name} : poignée {level} : {cards}",
    "screen.last_trick": "Dernier pli (remporté par {name}) : {cards}",
    "screen.hand": "Votre main ({n} cartes)",
    "screen.hand_legend": "Les cartes numérotées sont celles que vous pouvez jouer maintenant.",
    "screen.hand_legend_discard": "Les cartes numérotées peuvent aller à l'écart.",
    "screen.trumps": "Atouts",
    "screen.spectator": "Vous regardez cette table.",
    "screen.waiting_for": "On attend {name}…",
    "screen.timer": "Vous avez {s:.0f} s avant que l'IA joue pour vous.",
    "ev.deal_start": "Donne {n} — donneur : {name}",
    "ev.bid": "{name} annonce {contract}.",
    "ev.pass": "{name} passe.",
    "ev.contract": "{name} prend : {contract}.",
    "ev.chien": "Le chien est montré : {cards}",
    "ev.discard": "{name} a fait son écart.",
    "ev.discard_trumps": "{name} a fait son écart, avec les atouts {cards}.",
    "ev.discard_you": "Vous avez écarté {cards}.",
    "ev.chelem_yes": "{name} annonce un chelem et entame le premier pli !",
    "ev.chelem_no": "Pas de chelem. {name} entame le premier pli.",
    "ev.poignee": "{name} montre une poignée {level} : {cards}",
    "ev.play": "{name} joue {card}.",
    "ev.trick": "Le pli {n} va à {name} ({points} points) : {cards}",
    "ev.bid_you": "Vous annoncez {contract}.",
    "ev.pass_you": "Vous passez.",
    "ev.contract_you": "Vous prenez : {contract}.",
    "ev.chelem_yes_you": "Vous annoncez un chelem et entamez le premier pli !",
    "ev.chelem_no_you": "Pas de chelem. Vous entamez le premier pli.",
    "ev.poignee_you": "Vous montrez une poignée {level} : {cards}",
    "ev.play_you": "Vous jouez {card}.",
    "ev.trick_you": "Vous remportez le pli {n} ({points} points) : {cards}",
    "ev.annulled": "La donne est annulée : {reason}.",
    "reason.petit_sec": "petit sec (un joueur a le Petit sans autre atout)",
    "reason.all_passed": "tout le monde a passé",
    "ev.seat_joined": "{name} s'assoit à la place {n}.",
    "ev.seat_ai": "Une IA joue désormais la place {n}.",
    "ev.seat_empty": "La place {n} est libre.",
    "ev.seat_away": "{name} a perdu la connexion ; l'IA le remplace jusqu'à son retour.",
    "ev.seat_back": "{name} est de retour.",
    "ev.timeout": "Temps écoulé : l'IA a décidé pour vous.",
    "ev.started": "La partie commence.",
    "ev.finished": "La partie est terminée.",
    "ev.closed": "La table est fermée ({reason}).",
    "ev.restarted": "Une nouvelle série commence.",
    "prompt.bid": "Votre enchère",
    "prompt.bid_help": "Tapez un numéro ou le nom d'un contrat.",
    "prompt.discard": "Votre écart",
    "prompt.discard_help": (
        "Choisissez {n} cartes à écarter : leurs numéros ou codes, séparés par des espaces."
    ),
    "prompt.discard_required": "Déjà dans l'écart (imposé par R5.3) : {cards}",
    "prompt.discard_rule_plain": (
        "Vous avez {n} cartes basses (cartes de couleur hors rois), donc l'écart est de six "
        "cartes basses : ni atout, ni roi, ni bout (R5.2, R5.3)."
    ),
    "prompt.discard_rule_forced": (
        "Vous n'avez que {n} cartes basses : elles vont toutes à l'écart, complété par des "
        "atouts de T2 à T20, que tout le monde verra (R5.3, R5.4)."
    ),
    "prompt.discard_confirm": "Appuyez sur Entrée pour écarter ces cartes.",
    "prompt.chelem": "Annoncer un chelem ? Vous entamez et devez faire les 18 plis (+400, sinon −200) [o/N]",
    "prompt.poignee": "Montrer une poignée ?",
    "prompt.poignee_help": (
        "Entrée : non. Un numéro : montrer cette sélection. Ou tapez les {size} cartes à montrer."
    ),
    "prompt.poignee_option": "{i} : {level} — {size} cartes, prime {bonus} : {cards}",
    "prompt.play": "Votre carte",
    "prompt.play_help": "Tapez le numéro ou le code de la carte (p. ex. {example}).",
    "prompt.continue": "Entrée : continuer · r : revoir la donne pli par pli",
    "prompt.last_continue": "Entrée : terminer · r : revoir la donne pli par pli",
    "prompt.start": "En attente de joueurs ({n}/4 assis). Tapez `start` pour commencer tout de suite avec des IA aux places vides.",
    "prompt.idle": "Ce n'est pas votre tour : on attend {name}. (help : commandes)",
    "help.commands": (
        "Commandes : un numéro ou un code de carte à votre tour ; `table` réaffiche la table ; "
        "`review` montre la dernière donne pli par pli ; `score` le classement ; `help` ; `quit`."
    ),
    "help.codes": (
        "Codes des cartes : couleur S (pique), H (cœur), D (carreau), C (trèfle) puis la valeur "
        "1..10, J (valet), C (cavalier), Q (dame), K (roi) — p. ex. H10, SK, DC ; atouts T1..T21 ; "
        "l'Excuse EX. Majuscules ou minuscules."
    ),
    "yes": "o",
    "yes.words": "y,yes,o,oui,a,ano",
    "no.words": "n,no,non,ne",
    "err.empty": "Tapez quelque chose (aide : `help`).",
    "err.unknown": "« {text} » n'est ni un code de carte ni un numéro de la liste.",
    "err.number": "Il n'y a pas de numéro {n} dans la liste : choisissez de 1 à {max}.",
    "err.not_in_hand": "{card} n'est pas dans votre main.",
    "err.bid": "« {text} » n'est pas une enchère possible maintenant. Choisissez parmi : {options}.",
    "err.bid_low": "{contract} ne suffit pas : une enchère doit dépasser la plus haute déjà faite (R4.2).",
    "err.yes_no": "Répondez o (oui) ou n (non).",
    "err.illegal_play": "Vous ne pouvez pas jouer {card} : {why}",
    "why.follow": "vous devez fournir à {suit} puisque vous en avez (R7.5).",
    "why.trump": "vous n'avez pas de {suit}, vous devez donc couper (R7.5).",
    "why.trump_led": "atout demandé et vous en avez : vous devez jouer atout (R7.5).",
    "why.overtrump": "vous devez monter sur {card} puisque vous le pouvez : {cards} (R7.6).",
    "why.generic": "{message} ({rule}).",
    "why.legal": "Vous pouvez jouer : {cards}.",
    "err.discard_count": "L'écart compte exactement {count} cartes ; vous en avez donné {n}.",
    "err.discard_twice": "{card} est donnée deux fois.",
    "err.discard_never": "{card} ne peut jamais être écartée : ni rois ni bouts à l'écart (R5.2).",
    "err.discard_trump": "{card} est un atout : avec six cartes basses ou plus, on n'écarte pas d'atout (R5.3).",
    "err.discard_not_choice": "{card} ne peut pas compléter l'écart : seuls des cartes basses et des atouts T2..T20 le peuvent (R5.3).",
    "err.poignee_size": "Une poignée {level} montre exactement {size} cartes ; vous en avez donné {n}.",
    "err.poignee_card": "{card} ne peut pas être montrée : une poignée ne montre que des atouts (et l'Excuse) de votre main (R6.4).",
    "err.poignee_excuse": "L'Excuse ne remplace un atout que si vous montrez tous vos atouts (R6.4).",
    "err.server": "Le serveur a refusé : {message}",
    "err.server_rule": "Le serveur a refusé ({rule}) : {message}",
    "err.no_table": "Aucune table ouverte « {table} ». `atout tables` liste les tables publiques.",
    "err.full": "La table {table} a déjà quatre joueurs.",
    "err.seat_taken": "Cette place est prise par un autre joueur ; essayez une autre --seat ou aucune.",
    "err.connect": "Impossible de joindre le serveur {url} : {error}",
    "err.connect_hint": "Le serveur tourne-t-il ? Lancez-en un avec `atout-server serve`, ou indiquez --server.",
    "err.version": "Le serveur ne parle pas la version du protocole de ce client ({error}).",
    "err.replaced": "Votre place a été reprise par une autre connexion (vous-même ailleurs).",
    "err.gave_up": "Impossible de se reconnecter au serveur ; abandon.",
    "err.bad_url": "« {url} » n'est pas une adresse WebSocket (ws://hôte:port ou wss://hôte).",
    "net.connected": "Connecté à {url} sous le nom {name}.",
    "net.lost": "Connexion perdue ; nouvelle tentative dans {s:.1f} s (essai {n})…",
    "net.resumed": "Reconnecté : vous retrouvez votre place.",
    "net.rewatch": "Reconnecté : vous regardez de nouveau.",
    "net.closed": "Le serveur a fermé la connexion ({reason}).",
    "tables.none": "Aucune table publique ouverte. Lancez une partie avec `atout play`, ou créez-en une pour des amis avec `atout create`.",
    "tables.title": "Tables publiques sur {url}",
    "tables.id": "Table",
    "tables.name": "Nom",
    "tables.state": "État",
    "tables.players": "Joueurs",
    "tables.deal": "Donne",
    "tables.watchers": "Spectateurs",
    "tables.join_hint": "Rejoignez-en une avec `atout join TABLE`, ou regardez-la avec `atout watch TABLE`.",
    "create.done": "La table {table} est créée.",
    "create.join": "Vos amis la rejoignent avec :",
    "create.watch": "Les spectateurs la suivent avec :",
    "play.created": "Une nouvelle table avec trois IA ({ai}) est prête ; vous êtes à la place {seat}.",
    "join.done": "Vous êtes à la place {seat} de la table {table}.",
    "watch.done": "Vous regardez la table {table}. Ctrl-C pour arrêter.",
    "bye": "Au revoir !",
    "bye.seat": "Au revoir ! Une IA joue votre place ; pendant {grace:.0f} s, `{command}` vous la rend.",
    "sum.title": "Donne {n} : résultat",
    "sum.contract": "Contrat",
    "sum.taker": "Preneur",
    "sum.oudlers": "Bouts",
    "sum.target": "Points à faire",
    "sum.points": "Points du preneur",
    "sum.defence": "Points de la défense",
    "sum.outcome": "Issue",
    "sum.won": "faite de {d}",
    "sum.lost": "chutée de {d}",
    "sum.base": "Base (25 + écart) × multiplicateur",
    "sum.petit": "Petit au bout",
    "sum.poignee": "Poignées",
    "sum.chelem": "Chelem",
    "sum.per_defender": "Par défenseur",
    "sum.scores": "Cette donne",
    "sum.total": "Total",
    "sum.standings": "Classement après la donne {n}",
    "sum.final": "Classement final",
    "sum.winner": "Vainqueur : {name} !",
    "sum.winners": "Vainqueurs : {names} !",
    "sum.annulled": "La donne {n} est annulée ({reason}) : personne ne marque.",
    "rev.title": "Donne {n}, pli par pli",
    "rev.trick": "N°",
    "rev.winner": "Gagnant",
    "rev.points": "Points",
    "rev.running": "Total preneur",
    "rev.pile": "+ écart / chien pour le preneur : {points}",
    "rev.pile_defence": "+ chien pour la défense (garde contre)",
    "rev.final": "Points du preneur : {points} (il en fallait {target})",
    "rev.hands": "Mains distribuées",
    "rev.chien": "Chien",
    "rev.none": "Aucune donne terminée à revoir pour l'instant.",
    "ev.ai_for_you": "L'IA a joué pour vous : {action}.",
    "ev.away_actions": "Pendant votre absence, l'IA a joué {n} {n:p:coup|coups} pour vous : {actions}.",
    "act.discard": "l'écart",
    "act.chelem_yes": "un chelem annoncé",
    "act.chelem_no": "pas de chelem",
    "act.poignee": "une poignée montrée",
    "join.back": "Vous retrouvez votre place {seat} à la table {table}.",
    "join.other_seat": "Impossible de reprendre votre place {old} ({why}) ; vous êtes maintenant à la place {seat} de la table {table}.",
    "join.why_expired": "le délai pour revenir est écoulé",
    "join.why_taken": "un autre joueur l'occupe",
    "err.which_seat": "À la table {table}, vous tenez les places {seats} sous le nom {name} : choisissez-en une avec --seat.",
}

CS: dict[str, str] = {
    "cli.description": "Atout: hrajte francouzský tarok v terminálu proti počítači nebo s přáteli.",
    "cli.epilog": (
        "Bez příkazu spustí `atout` příkaz `play`. Server je {default}, pokud --server nebo "
        "ATOUT_SERVER neurčí jiný. Místní server spustíte příkazem `atout-server serve`."
    ),
    "cli.server": "adresa serveru, např. ws://127.0.0.1:8765 (proměnná ATOUT_SERVER)",
    "cli.name": "vaše zobrazované jméno (proměnná ATOUT_NAME; výchozí: přihlašovací jméno)",
    "cli.lang": "jazyk: en, fr nebo cs (výchozí: podle LANG / LC_ALL)",
    "cli.auto": "všechna rozhodnutí za vás udělá jednoduchý robot",
    "cli.json": "místo stolu vypisovat zprávy protokolu jako řádky JSON",
    "cli.play": "hrát hru proti třem počítačovým hráčům (nový soukromý stůl)",
    "cli.tables": "vypsat veřejné stoly serveru",
    "cli.join": "přisednout ke stolu (stolu přítele nebo z `atout tables`)",
    "cli.create": "založit stůl pro přátele a vypsat, jak se připojí",
    "cli.watch": "sledovat stůl jako divák",
    "cli.table_id": "identifikátor stolu (viz `atout tables`, nebo ten, který vám poslal přítel)",
    "cli.seat": "číslo místa 0..3 (výchozí: libovolné volné)",
    "cli.deals": "počet her (rozdání) (výchozí 4)",
    "cli.target": "hrát, dokud některý hráč nedosáhne tohoto skóre (místo --deals)",
    "cli.ai": "úroveň počítačových hráčů na volných místech: random, heuristic nebo strong (výchozí {default})",
    "cli.think": "kolik sekund počítač přemýšlí před tahem (výchozí: podle serveru)",
    "cli.pause": "sekundy mezi dvěma rozdáními (výchozí: podle serveru)",
    "cli.timer": "sekundy na tah, než za hráče zahraje počítač (výchozí: bez limitu)",
    "cli.table_name": "název stolu zobrazený v `atout tables`",
    "cli.private": "nezveřejňovat stůl (přátelé potřebují jeho identifikátor)",
    "cli.public": "zveřejnit stůl, aby ho mohli sledovat i ostatní",
    "seat.you": "Vy",
    "seat.n": "Místo {n}",
    "seat.ai": "Počítač {n}",
    "seat.empty": "(volno)",
    "seat.away": "nepřítomen, hraje počítač",
    "seat.dealer": "rozdává",
    "seat.taker": "hráč",
    "suit.S": "piky",
    "suit.H": "srdce",
    "suit.D": "káry",
    "suit.C": "kříže",
    "suit.T": "taroky",
    "rank.J": "kluk",
    "rank.C": "kavalír",
    "rank.Q": "dáma",
    "rank.K": "král",
    "card.plain": "{suit} {rank}",
    "card.trump": "tarok {n}",
    "card.petit": "pagát (tarok 1)",
    "card.monde": "mond (tarok 21)",
    "card.excuse": "škýz (Excuse)",
    "contract.pass": "pas",
    "contract.prise": "prise (×1)",
    "contract.garde": "garde (×2)",
    "contract.garde_sans": "garde bez talonu (×4)",
    "contract.garde_contre": "garde proti talonu (×6)",
    "level.single": "jednoduchá",
    "level.double": "dvojitá",
    "level.triple": "trojitá",
    "state.waiting": "čeká",
    "state.playing": "hraje se",
    "state.finished": "skončil",
    "state.closed": "zavřen",
    "screen.title": "Stůl {table} · rozdání {deal}",
    "screen.title_of": "Stůl {table} · rozdání {deal} z {total}",
    "screen.seat": "Místo",
    "screen.player": "Jméno",
    "screen.bid": "Licitace",
    "screen.trick": "Štych {n}",
    "screen.won": "Štychy",
    "screen.score": "Skóre",
    "screen.cards": "Karty",
    "screen.to_act": "◀ na tahu",
    "screen.led": "vynesl",
    "screen.contract": "Závazek: {contract} — hraje: {taker}",
    "screen.chelem": "{name} hlásí slam (chelem)",
    "screen.chien": "Talon: {cards}",
    "screen.chien_hidden": "Talon: neukázán ({contract})",
    "screen.discard_trumps": "Taroky v odhozu: {cards}",
    "screen.your_discard": "Váš odhoz: {cards}",
    "screen.poignee": "{name}: poignée ({level}): {cards}",
    "screen.last_trick": "Poslední štych (vzal {name}): {cards}",
    "screen.hand": "Vaše karty ({n})",
    "screen.hand_legend": "Karty s číslem můžete teď zahrát.",
    "screen.hand_legend_discard": "Karty s číslem smíte odhodit.",
    "screen.trumps": "Taroky",
    "screen.spectator": "Sledujete tento stůl.",
    "screen.waiting_for": "Čeká se na: {name}…",
    "screen.timer": "Máte {s:.0f} s, pak za vás zahraje počítač.",
    "ev.deal_start": "Rozdání {n} — rozdává: {name}",
    "ev.bid": "{name} licituje {contract}.",
    "ev.pass": "{name} pasuje.",
    "ev.contract": "{name} hraje: {contract}.",
    "ev.chien": "Talon je otočen: {cards}",
    "ev.discard": "{name} odhodil(a) šest karet.",
    "ev.discard_trumps": "{name} odhodil(a) šest karet, mezi nimi taroky {cards}.",
    "ev.discard_you": "Odhodili jste {cards}.",
    "ev.chelem_yes": "{name} hlásí slam (chelem) a vynáší první štych!",
    "ev.chelem_no": "Slam se nehlásí. První štych vynáší {name}.",
    "ev.poignee": "{name} ukazuje poignée ({level}): {cards}",
    "ev.play": "{name} hraje {card}.",
    "ev.trick": "Štych {n} bere {name} ({points} bodů): {cards}",
    "ev.bid_you": "Licitujete {contract}.",
    "ev.pass_you": "Pasujete.",
    "ev.contract_you": "Hrajete: {contract}.",
    "ev.chelem_yes_you": "Hlásíte slam (chelem) a vynášíte první štych!",
    "ev.chelem_no_you": "Slam se nehlásí. První štych vynášíte vy.",
    "ev.poignee_you": "Ukazujete poignée ({level}): {cards}",
    "ev.play_you": "Hrajete {card}.",
    "ev.trick_you": "Berete štych {n} ({points} bodů): {cards}",
    "ev.annulled": "Rozdání se ruší: {reason}.",
    "reason.petit_sec": "holý pagát (hráč má pagát a žádný jiný tarok)",
    "reason.all_passed": "všichni pasovali",
    "ev.seat_joined": "{name} si sedá na místo {n}.",
    "ev.seat_ai": "Místo {n} teď hraje počítač.",
    "ev.seat_empty": "Místo {n} je volné.",
    "ev.seat_away": "{name} ztratil(a) spojení; do návratu za něj hraje počítač.",
    "ev.seat_back": "{name} je zpět.",
    "ev.timeout": "Čas vypršel: rozhodl za vás počítač.",
    "ev.started": "Hra začíná.",
    "ev.finished": "Hra skončila.",
    "ev.closed": "Stůl je zavřen ({reason}).",
    "ev.restarted": "Začíná nová série.",
    "prompt.bid": "Vaše licitace",
    "prompt.bid_help": "Napište číslo nebo název závazku.",
    "prompt.discard": "Váš odhoz",
    "prompt.discard_help": (
        "Vyberte {n} karet do odhozu: jejich čísla nebo kódy oddělené mezerami."
    ),
    "prompt.discard_required": "Už v odhozu (vyžaduje R5.3): {cards}",
    "prompt.discard_rule_plain": (
        "Máte {n} obyčejných karet (barevné karty kromě králů), takže odhodíte šest obyčejných "
        "karet: žádný tarok, krále ani honér (R5.2, R5.3)."
    ),
    "prompt.discard_rule_forced": (
        "Máte jen {n} obyčejných karet: všechny jdou do odhozu a doplní se taroky T2..T20, "
        "které uvidí všichni (R5.3, R5.4)."
    ),
    "prompt.discard_confirm": "Stiskněte Enter a tyto karty odhodíte.",
    "prompt.chelem": "Hlásit slam (chelem)? Pak vynášíte a musíte vzít všech 18 štychů (+400, jinak −200) [a/N]",
    "prompt.poignee": "Ukázat poignée?",
    "prompt.poignee_help": (
        "Enter: ne. Číslo: ukázat tuto sadu. Nebo napište {size} karet, které chcete ukázat."
    ),
    "prompt.poignee_option": "{i}: {level} — {size} karet, prémie {bonus}: {cards}",
    "prompt.play": "Vaše karta",
    "prompt.play_help": "Napište číslo nebo kód karty (např. {example}).",
    "prompt.continue": "Enter: pokračovat · r: projít rozdání štych po štychu",
    "prompt.last_continue": "Enter: konec · r: projít rozdání štych po štychu",
    "prompt.start": "Čeká se na hráče (sedí {n}/4). Napište `start` a hra začne hned, volná místa obsadí počítač.",
    "prompt.idle": "Nejste na tahu: čeká se na {name}. (help: příkazy)",
    "help.commands": (
        "Příkazy: číslo nebo kód karty, když jste na tahu; `table` znovu vykreslí stůl; `review` "
        "ukáže poslední rozdání štych po štychu; `score` pořadí; `help`; `quit`."
    ),
    "help.codes": (
        "Kódy karet: barva S (piky), H (srdce), D (káry), C (kříže) a hodnota 1..10, J (kluk), "
        "C (kavalír), Q (dáma), K (král) — např. H10, SK, DC; taroky T1..T21; škýz EX. "
        "Velká i malá písmena."
    ),
    "yes": "a",
    "yes.words": "y,yes,o,oui,a,ano",
    "no.words": "n,no,non,ne",
    "err.empty": "Napište něco (nápověda: `help`).",
    "err.unknown": "„{text}“ není kód karty ani číslo ze seznamu.",
    "err.number": "Číslo {n} v seznamu není: vyberte 1 až {max}.",
    "err.not_in_hand": "{card} nemáte v ruce.",
    "err.bid": "„{text}“ teď licitovat nelze. Vyberte z: {options}.",
    "err.bid_low": "{contract} nestačí: licitace musí být vyšší než dosud nejvyšší (R4.2).",
    "err.yes_no": "Odpovězte a (ano) nebo n (ne).",
    "err.illegal_play": "{card} zahrát nemůžete: {why}",
    "why.follow": "musíte přiznat barvu {suit}, protože ji máte (R7.5).",
    "why.trump": "barvu {suit} nemáte, musíte tedy hrát tarok (R7.5).",
    "why.trump_led": "vyneseny taroky a vy je máte: musíte hrát tarok (R7.5).",
    "why.overtrump": "musíte přebít {card}, protože můžete: {cards} (R7.6).",
    "why.generic": "{message} ({rule}).",
    "why.legal": "Můžete zahrát: {cards}.",
    "err.discard_count": "Odhoz má přesně {count} karet; zadali jste {n}.",
    "err.discard_twice": "{card} je zadána dvakrát.",
    "err.discard_never": "{card} nelze nikdy odhodit: krále a honéry do odhozu nesmí (R5.2).",
    "err.discard_trump": "{card} je tarok: se šesti a více obyčejnými kartami se taroky neodhazují (R5.3).",
    "err.discard_not_choice": "{card} nemůže doplnit odhoz: smí jen obyčejné karty a taroky T2..T20 (R5.3).",
    "err.poignee_size": "Poignée ({level}) má přesně {size} karet; zadali jste {n}.",
    "err.poignee_card": "{card} nelze ukázat: poignée ukazuje jen taroky (a škýz) z vaší ruky (R6.4).",
    "err.poignee_excuse": "Škýz smí nahradit tarok jen tehdy, když ukazujete všechny své taroky (R6.4).",
    "err.server": "Server odmítl: {message}",
    "err.server_rule": "Server odmítl ({rule}): {message}",
    "err.no_table": "Otevřený stůl „{table}“ neexistuje. `atout tables` vypíše veřejné stoly.",
    "err.full": "U stolu {table} už sedí čtyři hráči.",
    "err.seat_taken": "Toto místo má jiný hráč; zkuste jiné --seat nebo žádné.",
    "err.connect": "Server {url} není dostupný: {error}",
    "err.connect_hint": "Běží server? Spusťte ho příkazem `atout-server serve`, nebo zadejte --server.",
    "err.version": "Server nemluví verzí protokolu tohoto klienta ({error}).",
    "err.replaced": "Vaše místo převzalo jiné připojení (vy odjinud).",
    "err.gave_up": "K serveru se nelze znovu připojit; končím.",
    "err.bad_url": "„{url}“ není adresa WebSocket (ws://počítač:port nebo wss://počítač).",
    "net.connected": "Připojeno k {url} jako {name}.",
    "net.lost": "Spojení ztraceno; nový pokus za {s:.1f} s (pokus {n})…",
    "net.resumed": "Znovu připojeno: vaše místo je zpět.",
    "net.rewatch": "Znovu připojeno: opět sledujete.",
    "net.closed": "Server ukončil spojení ({reason}).",
    "tables.none": "Žádný veřejný stůl není otevřen. Hru začnete příkazem `atout play`, stůl pro přátele založíte `atout create`.",
    "tables.title": "Veřejné stoly na {url}",
    "tables.id": "Stůl",
    "tables.name": "Název",
    "tables.state": "Stav",
    "tables.players": "Hráči",
    "tables.deal": "Rozdání",
    "tables.watchers": "Diváci",
    "tables.join_hint": "Přisedněte příkazem `atout join STŮL`, nebo sledujte `atout watch STŮL`.",
    "create.done": "Stůl {table} je založen.",
    "create.join": "Přátelé přisednou příkazem:",
    "create.watch": "Diváci ho sledují příkazem:",
    "play.created": "Nový stůl se třemi počítačovými hráči ({ai}) je připraven; sedíte na místě {seat}.",
    "join.done": "Sedíte na místě {seat} u stolu {table}.",
    "watch.done": "Sledujete stůl {table}. Ctrl-C ukončí.",
    "bye": "Na shledanou!",
    "bye.seat": "Na shledanou! Vaše místo hraje počítač; do {grace:.0f} s vám ho `{command}` vrátí.",
    "sum.title": "Rozdání {n}: výsledek",
    "sum.contract": "Závazek",
    "sum.taker": "Hráč",
    "sum.oudlers": "Honéry",
    "sum.target": "Potřebné body",
    "sum.points": "Body hráče",
    "sum.defence": "Body obránců",
    "sum.outcome": "Výsledek",
    "sum.won": "splněno o {d}",
    "sum.lost": "nesplněno o {d}",
    "sum.base": "Základ (25 + rozdíl) × násobek",
    "sum.petit": "Pagát na konci (petit au bout)",
    "sum.poignee": "Poignée",
    "sum.chelem": "Slam (chelem)",
    "sum.per_defender": "Na obránce",
    "sum.scores": "Toto rozdání",
    "sum.total": "Celkem",
    "sum.standings": "Pořadí po rozdání {n}",
    "sum.final": "Konečné pořadí",
    "sum.winner": "Vítěz: {name}!",
    "sum.winners": "Vítězové: {names}!",
    "sum.annulled": "Rozdání {n} bylo zrušeno ({reason}): nikdo neboduje.",
    "rev.title": "Rozdání {n}, štych po štychu",
    "rev.trick": "č.",
    "rev.winner": "Bere",
    "rev.points": "Body",
    "rev.running": "Hráč celkem",
    "rev.pile": "+ odhoz / talon pro hráče: {points}",
    "rev.pile_defence": "+ talon pro obránce (garde proti talonu)",
    "rev.final": "Body hráče: {points} (potřeba {target})",
    "rev.hands": "Rozdané karty",
    "rev.chien": "Talon",
    "rev.none": "Zatím není žádné dohrané rozdání.",
    "ev.ai_for_you": "Počítač za vás zahrál: {action}.",
    "ev.away_actions": "Během vaší nepřítomnosti za vás počítač udělal {n} {n:p:tah|tahy|tahů}: {actions}.",
    "act.discard": "odhoz",
    "act.chelem_yes": "hlášený slam (chelem)",
    "act.chelem_no": "bez slamu",
    "act.poignee": "ukázanou hrst",
    "join.back": "Jste zpět na místě {seat} u stolu {table}.",
    "join.other_seat": "Vaše místo {old} už vzít zpět nelze ({why}); teď sedíte na místě {seat} u stolu {table}.",
    "join.why_expired": "čas na návrat vypršel",
    "join.why_taken": "sedí tam teď jiný hráč",
    "err.which_seat": "U stolu {table} máte pod jménem {name} místa {seats}: vyberte jedno pomocí --seat.",
}

MESSAGES: dict[str, dict[str, str]] = {"en": EN, "fr": FR, "cs": CS}


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

    def __call__(self, key: str, **kw: Any) -> str:
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
        """The card's name in words (``king of hearts``)."""
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
        rank = self(f"rank.{r}") if r in ("J", "C", "Q", "K") else r
        return self("card.plain", rank=rank, suit=self(f"suit.{s}"))

    def contract(self, name: str | None) -> str:
        return self(f"contract.{name}") if name else "—"

    def yes_words(self) -> set[str]:
        return set(self("yes.words").split(","))

    def no_words(self) -> set[str]:
        return set(self("no.words").split(","))
