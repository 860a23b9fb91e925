"""Adversarial search: fill in the functions below. This is the one file you upload.

The grader calls these functions by name with a ``game`` and a ``state``. You may add helper
functions; import only ``math`` and the constants below (``evaluate`` may also use ``random``).

The game (the formal game of the lectures)
------------------------------------------
``game.players``                  number of players (two-player games: ``MAX`` = 0, ``MIN`` = 1)
``game.to_move(state)``           TO-MOVE: the player to move (``MAX``, ``MIN``, an index
                                  ``0 .. players-1``), or ``CHANCE``
``game.actions(state)``           ACTIONS: the legal actions, in a fixed order
``game.result(state, action)``    RESULT: the child state reached by ``action``
``game.is_terminal(state)``       IS-TERMINAL: True when the game is over
``game.utility(state)``           UTILITY of a terminal state: a number for MAX in two-player
                                  games, a tuple with one entry a player in ``maxn`` cases
``game.depth_limit``              None (search to the end) or the depth where search stops
``game.is_cutoff(state, depth)``  CUTOFF-TEST: terminal, or ``depth`` is at the depth limit
``game.evaluate(state)``          EVAL: the utility at a terminal, the heuristic value at a cutoff
``game.with_depth_limit(limit)``  the same game cut at ``limit`` (1 <= limit <= depth_limit):
                                  its ``is_cutoff``/``evaluate`` follow ``limit``, its states
                                  are this game's, its calls are recorded like this game's
``game.chance_outcomes(state)``   at a CHANCE node: ``[(action, probability), ...]``
``game.value_bounds``             ``(L, U)``: every leaf value lies in [L, U] (Star1), or None
``game.max_sum``                  bound on the sum of a value vector (shallow pruning), or None
``game.key(state)``               a hashable key, the same for the same position however it
                                  was reached (a transposition table's key)
``game.is_quiet(state)``          False when the position may swing at once (quiescence)
``game.noisy_actions(state)``     the actions that make it swing (winning or blocking a line
                                  in the board games), a sub-list of ``actions``, same order
``game.quiescence_limit``         plies past ``depth_limit`` a quiescence search may go

States are opaque: pass them back to the game, never look inside them.

Rules every function follows (the grader checks the value AND the order of your calls)
------------------------------------------------------------------------------------------
* Visit children in ``game.actions(state)`` order (chance nodes: ``chance_outcomes`` order).
* Call ``game.result`` only for a child you are about to search, and once per child: every
  call generates a node, and generating children you then prune counts as searching them.
  (``mcts`` calls it for its expansions and playout moves only: see its docstring.)
* Depth is the number of edges from the root: the root is at depth 0 and each child is at
  ``depth + 1`` (chance edges count too). Pass ``depth + 1`` down.
* At a state where ``game.is_cutoff(state, depth)`` is True, return ``game.evaluate(state)``
  (at a terminal it is the utility); do not evaluate any other state.
* Ties keep the first child: a later child replaces the best one only if strictly better.
* Let no set choose an order (``for a in set(...)``, ``s.pop()``): a set of strings iterates in
  an order that changes with the Python version (Gradescope runs 3.10), so such code can pass
  on your machine and fail there. Keep actions in lists.

Your searches also play (the lectures' "modeling assumptions"): in the ``assumptions`` tests an
agent in a small Pacman game (``chase``) picks each move by your ``alpha_beta`` (it assumes the
ghost is an adversary: a MIN node) or your ``expectimax`` (it assumes the ghost moves at random:
a CHANCE node), called on each child position; every move must be the reference's.
``grader play`` shows your agents' table against an adversarial and a random ghost.
"""

import math

from grader.games import CHANCE, MAX, MIN  # noqa: F401  (the player constants)


def max_value(game, state, depth=0):
    """MAX-VALUE (minimax): the minimax value of ``state``, where MAX is to move.

    Returns a number: the utility for MAX under optimal play by both players.

    * If ``game.is_cutoff(state, depth)``: return ``game.evaluate(state)``.
    * Otherwise ``v = -infinity``; for each action in order, ``v = max(v, value of the child)``
      at ``depth + 1``; return ``v``.
    * The child's value comes from the function for the player to move THERE:
      ``max_value`` where ``game.to_move(child) == MAX``, ``min_value`` where it is ``MIN``
      (players need not alternate: MIN may move twice in a row).
    """
    raise NotImplementedError("max_value is not implemented yet")


def min_value(game, state, depth=0):
    """MIN-VALUE (minimax): the minimax value of ``state``, where MIN is to move.

    Returns a number: the utility for MAX under optimal play by both players.

    * If ``game.is_cutoff(state, depth)``: return ``game.evaluate(state)``.
    * Otherwise ``v = +infinity``; for each action in order, ``v = min(v, value of the child)``
      at ``depth + 1``; return ``v``.
    * The child's value comes from ``max_value`` or ``min_value``, whichever matches
      ``game.to_move(child)``.
    """
    raise NotImplementedError("min_value is not implemented yet")


def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    """Minimax with alpha-beta pruning: the minimax value of ``state``, either player to move.

    ``alpha``: the best value MAX can already guarantee on the path to the root (at least).
    ``beta``: the best value MIN can already guarantee on the path to the root (at most).
    Returns a number, the utility for MAX (the exact minimax value when called with the
    defaults).

    * If ``game.is_cutoff(state, depth)``: return ``game.evaluate(state)``.
    * MAX to move: ``v = -infinity``; for each action in order: ``v = max(v, alpha_beta(child,
      alpha, beta, depth + 1))``; if ``v >= beta``: return ``v`` (prune the remaining
      children); ``alpha = max(alpha, v)``. After the loop return ``v``.
    * MIN to move: ``v = +infinity``; for each action in order: ``v = min(v, alpha_beta(child,
      alpha, beta, depth + 1))``; if ``v <= alpha``: return ``v``; ``beta = min(beta, v)``.
    * Prune on equality (``>=`` / ``<=``), as in the lectures and AIMA: a child whose value
      reaches the bound ends the loop. The handout's README, "This course's pruning rule",
      names the rule your course grades.
    * Generate a child (``game.result``) only right before searching it: a pruned child must
      never be generated.
    """
    raise NotImplementedError("alpha_beta is not implemented yet")


def expectimax(game, state, depth=0):
    """Expectimax / expectiminimax: the value of ``state`` with MAX, MIN and CHANCE nodes.

    Returns a number, the (expected) utility for MAX.

    * If ``game.is_cutoff(state, depth)``: return ``game.evaluate(state)``.
    * MAX node: the largest child value; MIN node: the smallest (as in minimax).
    * CHANCE node: ``v = 0``; for each ``(action, p)`` in ``game.chance_outcomes(state)``, in
      order: ``v += p * expectimax(game.result(state, action), depth + 1)``; return ``v``.

    Only when ``game.value_bounds`` is ``(L, U)``, prune (Star1). Search with a window
    ``(alpha, beta)``, starting at ``(-infinity, +infinity)``, in a helper of your own:

    * MAX / MIN nodes prune exactly as ``alpha_beta`` does (``v >= beta`` / ``v <= alpha``)
      and pass their ``alpha, beta`` to every child.
    * A CHANCE node searches each child with the full window ``(-infinity, +infinity)``. Keep
      ``S`` = the sum of ``p * value`` of the children seen so far and ``R`` = the probability
      of the children not seen yet (start ``R = 1``; ``R -= p`` after each child). After each
      child except the last: if ``S + U*R <= alpha`` return ``S + U*R``; if ``S + L*R >= beta``
      return ``S + L*R``. After the last child return ``S``.
    """
    raise NotImplementedError("expectimax is not implemented yet")


def maxn(game, state, depth=0):
    """Max^n: the value vector of ``state`` in a game with ``game.players`` players.

    Returns a tuple with one entry a player (utilities and evaluations are vectors here).

    * If ``game.is_cutoff(state, depth)``: return ``tuple(game.evaluate(state))``.
    * Otherwise the player ``p = game.to_move(state)`` picks, among the children in order, the
      one whose vector has the largest entry ``p`` (ties: the first child); return that whole
      vector.

    Only when ``game.max_sum`` is set, shallow pruning: every entry is at least 0 and a
    vector's entries sum to at most ``max_sum``. In a helper of your own, tell each child its
    parent's mover ``q`` and the parent's best entry ``q`` so far (nothing for the parent's
    first child: no pruning there). At a node
    whose mover ``p`` differs from ``q``, stop searching its children, returning the best
    vector so far, as soon as ``best[p] >= max_sum - (parent's best entry q)``.
    """
    raise NotImplementedError("maxn is not implemented yet")


def mcts(game, state, iterations, rng, c=math.sqrt(2)):  # noqa: B008
    """Monte Carlo tree search (UCT): the action to play at ``state``.

    Keep a tree of nodes; each node has ``n`` (visits) and ``w`` (total reward), both 0 when
    created, its children in the order they were created, and its untried actions. Run
    ``iterations`` iterations of these four steps:

    1. SELECTION: start at the root; while the node is not terminal and has a child for every
       action, go to the child with the largest UCB1 ``w/n + c * math.sqrt(math.log(N)/n)``
       (``N`` = the parent's ``n``; ``math.log`` is the natural log; ties: the first child).
    2. EXPANSION: if that node is not terminal, create the child for its FIRST untried action
       (in ``game.actions`` order) with ``game.result``, and go to it.
    3. SIMULATION (playout): from that node's state, while not terminal, move to
       ``game.result(s, rng.choice(list(game.actions(s))))``; then ``u = game.utility(s)``.
       (If the node is terminal, ``u = game.utility`` of its own state.) Use ``rng`` for
       these choices and nothing else, and call ``game.result`` only here and in step 2.
    4. BACKPROPAGATION: for every node from there up to the root: ``n += 1``; and, except at
       the root, ``w +=`` the reward of the player who moved INTO the node (the player to move
       at its parent): ``u`` if that is MAX, ``-u`` if MIN, entry ``p`` of ``u`` when ``u`` is a
       tuple.

    The root is never simulated. Return the action of the root child with the most visits
    (ties: the first).
    """
    raise NotImplementedError("mcts is not implemented yet")


def iterative_deepening(game, state, max_depth):
    """Iterative deepening with move ordering at the root: returns ``(value, action)``.

    ``max_depth`` is the case's depth limit (``game.depth_limit``). Run one iteration for each
    ``limit`` in ``1, 2, ..., max_depth``; iteration ``limit`` is a fresh alpha-beta search of
    ``g = game.with_depth_limit(limit)`` from ``state`` (depth 0):

    * The root's loop is ``alpha_beta``'s loop with ``alpha, beta = -infinity, +infinity``
      (reset every iteration) and ``v = -infinity`` (MAX) / ``+infinity`` (MIN): for each root
      action in this iteration's ORDER, ``child_value = alpha_beta(g, g.result(state, action),
      alpha, beta, 1)``; remember ``child_value`` for that action; if it is strictly better
      than ``v`` for the player to move (``>`` for MAX, ``<`` for MIN), it becomes ``v`` and
      its action the best action (ties keep the earlier child); then prune and update
      ``alpha`` / ``beta`` exactly as ``alpha_beta`` does.
    * ORDER: iteration 1 uses ``game.actions(state)`` order. Every later iteration sorts the
      root's actions by the values remembered in the previous iteration, best first for the
      player to move at the root (highest first for MAX, lowest first for MIN); equal values
      keep ``game.actions(state)`` order (sort ``list(game.actions(state))`` with a stable sort,
      not the previous order). Use the numbers the root got back, even where a later child
      returned a bound.
    * Only the root's children are reordered: below the root, ``alpha_beta`` takes children
      in ``game.actions`` order as always.
    * Return ``(v, best_action)`` of the LAST iteration. If ``game.is_cutoff(state, 0)``:
      return ``(game.evaluate(state), None)``.

    Every iteration generates its nodes again: the grader checks ``generated`` and
    ``evaluated`` over all iterations, in order.
    """
    raise NotImplementedError("iterative_deepening is not implemented yet")


def alpha_beta_tt(game, state, table, alpha=-math.inf, beta=math.inf, depth=0):
    """Alpha-beta with a transposition table: the value of ``state``, as ``alpha_beta`` finds it.

    (Without a depth limit it is the minimax value. With one, a state at the cutoff may be
    answered by an entry searched deeper on another path, so the value may differ from
    ``alpha_beta``'s: the grader expects the value the steps below give.)

    ``table`` is a dict the grader hands in (empty at the root); your search fills it and
    passes the same dict down. Its key is ``game.key(state)`` (never the path or the depth:
    transposed states, reached by different move orders, share one entry); its entry is the
    tuple ``(value, bound, searched)``:

    * ``value``: the ``v`` the search of that state returned (a number for MAX);
    * ``bound``: ``"exact"`` (``value`` is the state's value), ``"lower"`` (the value is at
      least ``value``) or ``"upper"`` (at most ``value``);
    * ``searched``: how many plies below the state the search was allowed to go, counted from
      the state, not from the root: the ``needed`` of that call (below), ``game.depth_limit -
      depth`` with ``depth`` the state's own depth, or ``math.inf`` when ``game.depth_limit`` is
      None. It is the number the call computed before searching, never the depth where the
      search actually stopped and never ``depth`` itself.

    At every state, in this order (``needed`` = ``game.depth_limit - depth``, or ``math.inf``
    without a depth limit):

    1. LOOK UP ``table.get(game.key(state))``, before the cutoff test. Use the entry only if
       ``searched >= needed`` (an entry searched shallower is ignored, as if missing). Then:
       ``"exact"``: return ``value`` at once, whatever the window; ``"lower"``: ``alpha =
       max(alpha, value)``; ``"upper"``: ``beta = min(beta, value)``; after a lower or upper
       entry, if now ``alpha >= beta``, return ``value``. A state answered from the table
       (``"exact"``, or a window closed by a bound) generates no child, evaluates nothing and
       stores nothing: the entry stays as it is. A bound that does not close the window only
       narrows it: go on to step 2 with the narrowed ``alpha`` and ``beta``.
    2. If ``game.is_cutoff(state, depth)``: return ``game.evaluate(state)`` (store nothing).
    3. Otherwise search the children with ``alpha_beta``'s loop, in the window left by step 1,
       each child's value from ``alpha_beta_tt(game, child, table, alpha, beta, depth + 1)``.
       This loop always cuts on equality, ``v >= beta`` (MAX) / ``v <= alpha`` (MIN), even if
       your course grades ``alpha_beta`` with strict ``>`` / ``<`` (the README's "This course's
       pruning rule"): the bounds of step 4 are defined for that loop. Call the window ``(a,
       b)``: alpha and beta as the loop over the children starts, after step 1.
    4. STORE, also when the loop stopped at a cut (leave the loop with ``break``, not
       ``return``): ``table[game.key(state)] = (v, bound, needed)`` with ``bound``
       ``"upper"`` if ``v <= a``, ``"lower"`` if ``v >= b``, else ``"exact"``. Replace any
       entry already there. Return ``v``.

    Checked like ``alpha_beta``: where states repeat, you make fewer ``game.result`` calls than
    ``alpha_beta``, and exactly the reference's.
    """
    raise NotImplementedError("alpha_beta_tt is not implemented yet")


def quiescence(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    """Depth-limited alpha-beta with a quiescence search at the cutoff: the value of ``state``.

    A depth limit stops the search wherever it falls, even in the middle of a fight (the
    horizon effect). A quiescence search goes on past the limit along NOISY moves only
    (``game.noisy_actions(state)``), until the position is quiet.

    * Above the cutoff (``game.is_cutoff(state, depth)`` is False): ``alpha_beta``'s loop over
      every action in order, each child's value from ``quiescence(game, child, alpha, beta,
      depth + 1)``. This loop, and the one in step 4, always cut on equality, ``v >= beta``
      (MAX) / ``v <= alpha`` (MIN), even if your course grades ``alpha_beta`` with strict ``>``
      / ``<``.
    * At a cutoff (``game.is_cutoff(state, depth)``: terminal, or ``depth >=
      game.depth_limit``; quiescence cases always have a depth limit), instead of returning
      ``game.evaluate(state)``, return ``helper(game, state, alpha, beta, depth)``: a helper
      function of your own, passed this call's ``alpha`` and ``beta`` and this state's own
      ``depth`` (counted from the root, as everywhere: the helper does not start again from
      0). The helper does, at every state it reaches (the cutoff state, and each state below
      it at ``depth + 1``, ``depth + 2``, ...):

      1. ``stand = game.evaluate(state)``, always first (at a terminal it is the utility).
      2. Return ``stand`` if ``game.is_terminal(state)``, or ``game.is_quiet(state)``, or
         ``depth >= game.depth_limit + game.quiescence_limit``.
      3. STAND PAT: the player to move may decline every noisy move, so ``stand`` is a bound
         from their side. MAX: ``v = stand``; if ``v >= beta``: return ``v``; ``alpha =
         max(alpha, v)``. MIN: ``v = stand``; if ``v <= alpha``: return ``v``; ``beta =
         min(beta, v)``.
      4. Then ``alpha_beta``'s loop, starting from that ``v``, over
         ``game.noisy_actions(state)`` only (in that order), each child searched by this
         helper at ``depth + 1``. Return ``v``.

    No state above the cutoff is evaluated; each state the helper reaches is evaluated once,
    in step 1, even where step 3 then returns at once.
    """
    raise NotImplementedError("quiescence is not implemented yet")


def evaluate(game, state):
    """EVAL for a depth-limited search: how good ``state`` is for MAX (``x``), as a number.

    This one is graded by PLAY, not by a trace. The grader's own search (depth-limited
    minimax, ``depth`` plies: 2 unless the rubric says otherwise) plays matches of Connect Four
    (6 x 7, four in a row) and of the 5,5,4-game (tic-tac-toe on a 5 x 5 board, any empty
    square, four in a row) against fixed opponents, half of them as ``x`` and half as ``o``,
    and calls ``evaluate`` at its cutoff. It prunes (alpha-beta), so not every position at the
    cutoff is evaluated, but its moves are exactly minimax's. A win counts 1 and a draw 1/2;
    each step of score rate (e.g. 50%, 60%, 70%, 80% of the matches against the greedy player)
    earns half a point for each side, ``x`` and ``o``, whose score rate reaches it. Watch your
    own ``alpha_beta`` play with this ``evaluate``: ``grader play``.

    * Called only on positions that are NOT terminal (the search scores those by their
      outcome itself), at the search's depth cutoff, with either player to move.
    * Return a finite ``int`` or ``float``: larger is better for MAX (``x``), smaller for MIN
      (``o``); around 0 for an even position (a draw the search sees counts as 0). The scale is
      yours: a win or loss the search sees always outranks any value you return, and the
      search prefers sooner wins and later losses.
    * ``game`` here is the game's rules and its board, read-only: ``game.to_move(state)``,
      ``game.actions(state)``, ``game.result(state, action)``, ``game.is_terminal(state)``,
      ``game.utility(state)`` (+1 x wins, -1 o wins, 0 draw), and ``game.board(state)``: the
      rows top to bottom, each a string of ``"x"``, ``"o"`` and ``"."`` (Connect Four's marks
      fall to the lowest empty cell of a column); ``game.rows``, ``game.columns``,
      ``game.connect`` (marks in a row that win). There is no ``game.evaluate``: this is it.
    * An action is an ``int``: in Connect Four the column a mark drops into (0 the leftmost);
      in the 5,5,4-game the square, numbered row by row from 0 at the top left
      (``row * game.columns + column``).
    * At most 1,000 ``result``/``utility`` calls per evaluation (the rubric's ``[play] calls``);
      past that the call is stopped and the test scores 0.
    * Deterministic: the same position must get the same value. You may use ``random``: the
      grader seeds it before every call, by position, so a value never changes between calls.
    * Ties between moves go to the first in ``game.actions`` order.

    Ideas from the lectures: count the windows of ``game.connect`` cells still open for each
    player, weighting those nearly full much more; mind the opponent's threats as much as your
    own; central squares take part in more lines.
    """
    raise NotImplementedError("evaluate is not implemented yet")
