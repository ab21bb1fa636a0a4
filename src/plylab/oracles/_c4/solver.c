/* Exact Connect Four (7x6) solver: the compiled core of plylab.oracles.connect_four.
 *
 * Scores follow the usual convention: for the side to move, a win with its k-th own stone scores
 * 22 - k (positive = the mover wins, larger = sooner), a loss scores the opposite, a draw 0.
 *
 * The search is a negamax with alpha-beta on bitboards: a transposition table holding lower and
 * upper bounds and the move that last cut off, children ordered by the number of winning cells
 * they create (centre columns first among equals), moves that hand the opponent an immediate win pruned before the search,
 * forced blocks played at once, and an iterative null-window search at the root that narrows the
 * exact score. An optional opening book (the 12-ply book of the MIT `bitbully-databases` package:
 * big-endian 32-bit Huffman codes of positions, each followed by a signed distance byte) ends
 * the search at 12 stones, which is what makes positions near the start fast.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 7
#define HEIGHT 6
#define SIZE (WIDTH * HEIGHT)
#define BOOK_PLY 12
/* A prime above 2^17, so that (key mod 2^32, key mod TT_SIZE) identifies a 49-bit key. */
#define TT_SIZE 4194301u

typedef uint64_t bits;

#define BOTTOM ((bits)0x0040810204081ULL) /* the lowest cell of every column */
#define BOARD (BOTTOM * ((1ULL << HEIGHT) - 1))

static inline bits top_cell(int col) { return (bits)1 << (HEIGHT - 1 + col * (HEIGHT + 1)); }
static inline bits column_cells(int col) { return (((bits)1 << HEIGHT) - 1) << (col * (HEIGHT + 1)); }

/* current: stones of the side to move; mask: all stones. current + mask is a unique key. */
typedef struct {
    bits current;
    bits mask;
    int moves;
} Position;

/* Empty cells that would complete four in a row for the owner of `stones`. */
static bits winning_cells(bits stones, bits mask) {
    bits r = (stones << 1) & (stones << 2) & (stones << 3); /* vertical */
    static const int dirs[3] = {HEIGHT + 1, HEIGHT, HEIGHT + 2};
    for (int i = 0; i < 3; i++) {
        int d = dirs[i];
        bits p = (stones << d) & (stones << 2 * d);
        r |= p & (stones << 3 * d);
        r |= p & (stones >> d);
        p = (stones >> d) & (stones >> 2 * d);
        r |= p & (stones << d);
        r |= p & (stones >> 3 * d);
    }
    return r & (BOARD ^ mask);
}

static inline bits playable(const Position *p) { return (p->mask + BOTTOM) & BOARD; }
static inline bits own_threats(const Position *p) { return winning_cells(p->current, p->mask); }
static inline bits opponent_threats(const Position *p) { return winning_cells(p->current ^ p->mask, p->mask); }
static inline int can_win_next(const Position *p) { return (own_threats(p) & playable(p)) != 0; }

static inline void play(Position *p, bits move) {
    p->current ^= p->mask;
    p->mask |= move;
    p->moves++;
}

static bits mirror(bits b) {
    bits r = 0;
    for (int col = 0; col < WIDTH; col++)
        r |= ((b >> (col * (HEIGHT + 1))) & column_cells(0)) << ((WIDTH - 1 - col) * (HEIGHT + 1));
    return r;
}

/* Moves that do not lose at once: a forced block when the opponent threatens one cell, nothing
 * when it threatens two, and never a cell right below an opponent threat. */
static bits non_losing_moves(const Position *p) {
    bits possible = playable(p);
    bits threats = opponent_threats(p);
    bits forced = possible & threats;
    if (forced) {
        if (forced & (forced - 1)) return 0;
        possible = forced;
    }
    return possible & ~(threats >> 1);
}

/* ---- opening book ---------------------------------------------------------------------- */

#define BUCKET_BITS 20 /* about 27 entries a bucket, in two cache lines */

typedef struct {
    int32_t *codes; /* ascending */
    int8_t *values; /* first player's signed distance: 100 - plies to its win, or the opposite */
    Py_ssize_t n;
    /* entries whose code's top bits (in unsigned order) are b lie in [start[b], start[b + 1]) */
    int32_t *start;
} Book;

static inline uint32_t bucket(int32_t code) { return ((uint32_t)code ^ 0x80000000u) >> (32 - BUCKET_BITS); }

static uint32_t huffman_code(bits first, bits mask, int mirrored) {
    uint32_t code = 0;
    for (int i = 0; i < WIDTH; i++) {
        int col = mirrored ? WIDTH - 1 - i : i;
        for (int row = 0; row < HEIGHT; row++) {
            bits cell = (bits)1 << (col * (HEIGHT + 1) + row);
            if (!(mask & cell)) break;
            code = (code << 2) | ((first & cell) ? 2u : 3u);
        }
        code <<= 1; /* end of column */
    }
    return code << 1;
}

static int book_find(const Book *b, int32_t code, int *value) {
    uint32_t k = bucket(code);
    Py_ssize_t lo = b->start[k], hi = b->start[k + 1] - 1;
    while (lo <= hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (b->codes[mid] == code) {
            *value = b->values[mid];
            return 1;
        }
        if (b->codes[mid] < code) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

/* Exact score of a BOOK_PLY position (first player to move) if the book has it or its mirror. */
static int book_score(const Book *b, const Position *p, int *score) {
    int v;
    if (!book_find(b, (int32_t)huffman_code(p->current, p->mask, 0), &v) &&
        !book_find(b, (int32_t)huffman_code(p->current, p->mask, 1), &v))
        return 0;
    if (v == 0) {
        *score = 0;
    } else {
        /* the game ends with stone number BOOK_PLY + plies; the winner's score is (44 - that) / 2 */
        int plies = 100 - abs(v);
        int s = (SIZE + 2 - BOOK_PLY - plies) / 2;
        *score = v > 0 ? s : -s;
    }
    return 1;
}

/* ---- search ---------------------------------------------------------------------------- */

/* A table entry packs, from the low bits: the key's low 32 bits, lower bound + 64, upper bound
 * + 64 (0: empty entry) and the column of the last cut-off + 1 (0: none). */
typedef uint64_t Entry;

typedef struct {
    Entry *table;
    Book book;
    unsigned long long nodes;
} Search;

typedef struct {
    int lower, upper, move; /* move: -1 when none is known */
} Bounds;

static inline Entry *tt_slot(Search *s, bits key) { return &s->table[key % TT_SIZE]; }

static inline int tt_get(const Entry *e, bits key, Bounds *b) {
    Entry v = *e;
    if ((uint32_t)v != (uint32_t)key || !((v >> 40) & 0xff)) return 0;
    b->lower = (int)((v >> 32) & 0xff) - 64;
    b->upper = (int)((v >> 40) & 0xff) - 64;
    b->move = (int)((v >> 48) & 0xff) - 1;
    return 1;
}

static inline void tt_put(Entry *e, bits key, const Bounds *b) {
    *e = (Entry)(uint32_t)key | (Entry)(b->lower + 64) << 32 | (Entry)(b->upper + 64) << 40 |
         (Entry)(b->move + 1) << 48;
}

static const int ORDER[WIDTH] = {3, 2, 4, 1, 5, 0, 6};

/* Precondition: the side to move cannot win with its next stone. */
static int negamax(Search *s, const Position *p, int alpha, int beta) {
    s->nodes++;
    bits next = non_losing_moves(p);
    if (!next) return -(SIZE - p->moves) / 2;
    if (p->moves >= SIZE - 2) return 0;

    int lo = -(SIZE - 2 - p->moves) / 2; /* the opponent cannot win with its next stone */
    if (alpha < lo) {
        alpha = lo;
        if (alpha >= beta) return alpha;
    }
    int hi = (SIZE - 1 - p->moves) / 2; /* nor can we */
    if (beta > hi) {
        beta = hi;
        if (alpha >= beta) return beta;
    }

    bits key = p->current + p->mask;
    Entry *slot = tt_slot(s, key);
    Bounds known = {lo, hi, -1};
    if (tt_get(slot, key, &known)) {
        if (alpha < known.lower) {
            alpha = known.lower;
            if (alpha >= beta) return alpha;
        }
        if (beta > known.upper) {
            beta = known.upper;
            if (alpha >= beta) return beta;
        }
    } else if (p->moves == BOOK_PLY && s->book.n) {
        int exact;
        if (book_score(&s->book, p, &exact)) {
            Bounds b = {exact, exact, -1}; /* the table is faster to probe again than the book */
            tt_put(slot, key, &b);
            return exact;
        }
    }

    /* the last cut-off move first, then by the winning cells a move creates; stable, so the
     * centre comes first among equals */
    bits moves[WIDTH];
    int cols[WIDTH], rank[WIDTH], n = 0;
    for (int i = 0; i < WIDTH; i++) {
        int col = ORDER[i];
        bits m = next & column_cells(col);
        if (!m) continue;
        int r = col == known.move ? 1000 : __builtin_popcountll(winning_cells(p->current | m, p->mask));
        int j = n++;
        while (j > 0 && rank[j - 1] < r) {
            moves[j] = moves[j - 1];
            cols[j] = cols[j - 1];
            rank[j] = rank[j - 1];
            j--;
        }
        moves[j] = m;
        cols[j] = col;
        rank[j] = r;
    }

    for (int i = 0; i < n; i++) {
        Position child = *p;
        play(&child, moves[i]);
        int score = -negamax(s, &child, -beta, -alpha);
        if (score >= beta) {
            known.lower = score;
            known.move = cols[i];
            tt_put(slot, key, &known);
            return score;
        }
        if (score > alpha) alpha = score;
    }
    known.upper = alpha;
    tt_put(slot, key, &known);
    return alpha;
}

/* Exact score: a sequence of null-window searches that halves the interval each time. */
static int solve(Search *s, const Position *p) {
    if (can_win_next(p)) return (SIZE + 1 - p->moves) / 2;
    int lo = -(SIZE - p->moves) / 2, hi = (SIZE + 1 - p->moves) / 2;
    while (lo < hi) {
        int med = lo + (hi - lo) / 2;
        if (med <= 0 && lo / 2 < med) med = lo / 2;
        else if (med >= 0 && hi / 2 > med) med = hi / 2;
        int r = negamax(s, p, med, med + 1);
        if (r <= med) hi = r;
        else lo = r;
    }
    return lo;
}

/* ---- Python type ----------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    Search search;
    PyThread_type_lock lock; /* the search runs without the GIL; one search at a time */
} SolverObject;

/* Replays 0-based columns; fails on a bad column, a full column or a finished game. */
static int parse_moves(PyObject *seq, Position *out) {
    PyObject *fast = PySequence_Fast(seq, "moves must be a sequence of columns");
    if (!fast) return -1;
    Position p = {0, 0, 0};
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        long col = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (col == -1 && PyErr_Occurred()) goto fail;
        if (col < 0 || col >= WIDTH) {
            PyErr_Format(PyExc_ValueError, "move %zd: column %ld is not in 0..%d", i, col, WIDTH - 1);
            goto fail;
        }
        if (p.mask & top_cell((int)col)) {
            PyErr_Format(PyExc_ValueError, "move %zd: column %ld is full", i, col);
            goto fail;
        }
        bits move = (p.mask + ((bits)1 << (col * (HEIGHT + 1)))) & column_cells((int)col);
        if (own_threats(&p) & move) {
            if (i != n - 1) {
                PyErr_Format(PyExc_ValueError, "move %zd: the game was already won", i + 1);
                goto fail;
            }
            PyErr_SetString(PyExc_ValueError, "the position is terminal: the last move won");
            goto fail;
        }
        play(&p, move);
    }
    Py_DECREF(fast);
    if (p.moves == SIZE) {
        PyErr_SetString(PyExc_ValueError, "the position is terminal: the board is full");
        return -1;
    }
    *out = p;
    return 0;
fail:
    Py_DECREF(fast);
    return -1;
}

static int Solver_init(SolverObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"book", NULL};
    Py_buffer buf = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|y*", kwlist, &buf)) return -1;
    Search *s = &self->search;
    if (s->table) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_TypeError, "Solver is already initialised");
        return -1;
    }
    s->table = PyMem_RawMalloc(TT_SIZE * sizeof(Entry));
    self->lock = PyThread_allocate_lock();
    if (!s->table || !self->lock) {
        PyBuffer_Release(&buf);
        PyErr_NoMemory();
        return -1;
    }
    /* zeroed by writing, so the pages are mapped now rather than one fault at a time in a search */
    memset(s->table, 0, TT_SIZE * sizeof(Entry));
    if (buf.buf && buf.len) {
        const unsigned char *d = buf.buf;
        Py_ssize_t n = buf.len / 5;
        if (buf.len % 5) {
            PyBuffer_Release(&buf);
            PyErr_SetString(PyExc_ValueError, "book: size is not a whole number of 5-byte entries");
            return -1;
        }
        s->book.codes = PyMem_RawMalloc((size_t)n * sizeof(int32_t));
        s->book.values = PyMem_RawMalloc((size_t)n * sizeof(int8_t));
        if (!s->book.codes || !s->book.values) {
            PyBuffer_Release(&buf);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++, d += 5) {
            uint32_t c = ((uint32_t)d[0] << 24) | ((uint32_t)d[1] << 16) | ((uint32_t)d[2] << 8) | d[3];
            s->book.codes[i] = (int32_t)c;
            s->book.values[i] = (int8_t)d[4];
            if (i && s->book.codes[i] <= s->book.codes[i - 1]) {
                PyBuffer_Release(&buf);
                PyErr_SetString(PyExc_ValueError, "book: entries are not sorted; not a 12-ply distance book");
                return -1;
            }
        }
        s->book.n = n;
        s->book.start = PyMem_RawMalloc((((size_t)1 << BUCKET_BITS) + 1) * sizeof(int32_t));
        if (!s->book.start) {
            PyBuffer_Release(&buf);
            PyErr_NoMemory();
            return -1;
        }
        Py_ssize_t i = 0;
        for (uint32_t k = 0; k <= (1u << BUCKET_BITS); k++) {
            while (i < n && bucket(s->book.codes[i]) < k) i++;
            s->book.start[k] = (int32_t)i;
        }
    }
    PyBuffer_Release(&buf);
    return 0;
}

static void Solver_dealloc(SolverObject *self) {
    PyMem_RawFree(self->search.table);
    PyMem_RawFree(self->search.book.codes);
    PyMem_RawFree(self->search.book.values);
    PyMem_RawFree(self->search.book.start);
    if (self->lock) PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Solver_solve(SolverObject *self, PyObject *moves) {
    Position p;
    if (parse_moves(moves, &p) < 0) return NULL;
    int score;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    score = solve(&self->search, &p);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(score);
}

static PyObject *Solver_analyze(SolverObject *self, PyObject *moves) {
    Position p;
    if (parse_moves(moves, &p) < 0) return NULL;
    int scores[WIDTH], legal[WIDTH];
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    bits wins = own_threats(&p);
    int symmetric = mirror(p.current) == p.current && mirror(p.mask) == p.mask;
    for (int col = 0; col < WIDTH; col++) {
        legal[col] = !(p.mask & top_cell(col));
        if (!legal[col]) continue;
        if (symmetric && col > WIDTH / 2) { /* the mirror image of a column already scored */
            scores[col] = scores[WIDTH - 1 - col];
            continue;
        }
        bits move = (p.mask + ((bits)1 << (col * (HEIGHT + 1)))) & column_cells(col);
        if (wins & move) {
            scores[col] = (SIZE + 1 - p.moves) / 2;
            continue;
        }
        Position child = p;
        play(&child, move);
        scores[col] = child.moves == SIZE ? 0 : -solve(&self->search, &child);
    }
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    PyObject *out = PyTuple_New(WIDTH);
    if (!out) return NULL;
    for (int col = 0; col < WIDTH; col++) {
        PyObject *v = legal[col] ? PyLong_FromLong(scores[col]) : Py_NewRef(Py_None);
        if (!v) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, col, v);
    }
    return out;
}

static PyObject *Solver_reset(SolverObject *self, PyObject *Py_UNUSED(ignored)) {
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    memset(self->search.table, 0, TT_SIZE * sizeof(Entry));
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *Solver_get_nodes(SolverObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLongLong(self->search.nodes);
}

static PyObject *Solver_get_book_size(SolverObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromSsize_t(self->search.book.n);
}

static PyMethodDef Solver_methods[] = {
    {"solve", (PyCFunction)Solver_solve, METH_O,
     "solve(moves) -> int: exact score of the position after 0-based columns `moves`."},
    {"analyze", (PyCFunction)Solver_analyze, METH_O,
     "analyze(moves) -> tuple of 7: exact score of each column for the side to move, None if full."},
    {"reset", (PyCFunction)Solver_reset, METH_NOARGS, "reset(): empty the transposition table."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)Solver_get_nodes, NULL, "positions searched since creation", NULL},
    {"book_size", (getter)Solver_get_book_size, NULL, "entries in the opening book (0: none)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "plylab.oracles._connect_four.Solver",
    .tp_doc = "Solver(book: bytes = b''): exact Connect Four scores; `book` is a 12-ply "
              "distance book (bitbully-databases format).",
    .tp_basicsize = sizeof(SolverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "plylab.oracles._connect_four",
    .m_doc = "Compiled core of the exact Connect Four solver.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__connect_four(void) {
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Solver", (PyObject *)&SolverType) < 0 ||
        PyModule_AddIntConstant(m, "BOOK_PLY", BOOK_PLY) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
