/*
 * The canonical bytes (audit/canonical.ts, version 2) of each row of a Native block, hashed with SHA-256: the same
 * bytes canonical.ts `entryBytes` gives for the row's values, walked from the block's columns (strings and 64-bit
 * values copied as they lie, maps key-sorted), for a fraction of the CPU of JavaScript. JavaScript parses the block
 * header, checks every column's extent and offsets and binds the columns (native-entries.ts `columnsOf`, `bind`);
 * this file only walks the rows. Every read is bounds-checked all the same: on anything unexpected it returns a
 * code and JavaScript redoes the block itself (precise errors there).
 *
 * hashRows(body, columns, rows, prefix, start, end, out[, textOnly]) -> number
 *   columns: Float64Array, 7 numbers per canonical column in canonical order: layout, a, b, c, d, stop, stop2 (the
 *            `Column` of native-block.ts: its cursors, and where its string cursors must stop: MALFORMED when a
 *            walked column does not end exactly at its part's end); start, end: the start_time and end_time columns
 *   prefix:  the table line ("tool_calls\n") each row's bytes start with
 *   out:     32 * rows bytes, each row's SHA-256 (the entry hash of the Merkle log's leaf)
 *   textOnly: true = write each row's bytes and hash nothing, out untouched (bench/audit-path.ts times the two apart)
 *   returns OK, NEEDS_JS (a map key outside ASCII: JS string order needed) or MALFORMED (or SHA-256 unavailable).
 *
 * leafHashes(entries, out) -> number: RFC 6962 leaf hashes, SHA-256(0x00 || entry), of the 32-byte entries.
 * nodeHashes(pairs, out) -> number: RFC 6962 node hashes, SHA-256(0x01 || left || right), of the 64-byte pairs; out
 *   may be pairs itself (a tile folded in place, one level per call). Both return OK, or MALFORMED on bad sizes.
 *
 * skipStrings(body, at, count) -> number: the position after `count` Native strings from `at`, or -1 when they run
 *   past the end (native-block.ts `columnsOf` finds the columns with it; its JavaScript loop then names the error).
 */
#include <node_api.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { STR, BOOL, U64, I64, NULL_U64, NULL_I64, ARR_STR, ARR_I64, MAP, ARR_MAP, DURATION, EMPTY };
enum { OK = 0, NEEDS_JS = 1, MALFORMED = 2 };

typedef struct {
  int layout;
  size_t a, b, c, d, stop, stop2, end, end2;
} column;

typedef struct {
  uint8_t *p;
  size_t len, cap;
} buf;

/* The block read, and one map's key and value positions (scratch, per call: no globals, workers may call too). */
typedef struct {
  const uint8_t *b;
  size_t n;
  int err;
  size_t *ks, *kl, *vs, *vl;
  size_t map_cap;
} block;

static void grow_to(buf *t, size_t more) {
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + more) cap *= 2;
  uint8_t *p = realloc(t->p, cap);
  if (!p) abort();
  t->p = p;
  t->cap = cap;
}

static inline void grow(buf *t, size_t more) {
  if (__builtin_expect(t->len + more > t->cap, 0)) grow_to(t, more);
}

static inline void put(buf *t, uint8_t c) {
  grow(t, 1);
  t->p[t->len++] = c;
}

static inline void puts_(buf *t, const char *s, size_t n) {
  grow(t, n);
  memcpy(t->p + t->len, s, n);
  t->len += n;
}

static inline uint64_t u64at(block *k, size_t at) {
  if (at + 8 > k->n) {
    k->err = MALFORMED;
    return 0;
  }
  uint64_t v;
  memcpy(&v, k->b + at, 8);
  return v;
}

/* A Native string at *at: its bytes in [*start, *start + *len); advances *at. */
static inline void str(block *k, size_t *at, size_t *start, size_t *len) {
  uint64_t v = 0;
  int shift = 0;
  size_t p = *at;
  for (;;) {
    if (p >= k->n || shift > 56) {
      k->err = MALFORMED;
      *start = *len = 0;
      return;
    }
    uint8_t c = k->b[p++];
    v |= (uint64_t)(c & 0x7f) << shift;
    if (c < 0x80) break;
    shift += 7;
  }
  if (v > k->n - p) {
    k->err = MALFORMED;
    *start = *len = 0;
    return;
  }
  *start = p;
  *len = (size_t)v;
  *at = p + (size_t)v;
}

/* LEB128, as RowBinary writes lengths and counts. */
static inline void varint(buf *t, uint64_t v) {
  grow(t, 10);
  while (v >= 0x80) {
    t->p[t->len++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  t->p[t->len++] = (uint8_t)v;
}

static inline void bytes_(buf *t, const uint8_t *s, size_t n) {
  varint(t, n);
  puts_(t, (const char *)s, n);
}

static inline void u64_(buf *t, uint64_t v) { puts_(t, (const char *)&v, 8); }

/* A map of n pairs, key-sorted as JavaScript sorts strings (canonical.ts): count, then key and value of each. */
static int write_map(buf *t, block *k, size_t *key_at, size_t *value_at, uint64_t n) {
  if (n > k->n) return MALFORMED;
  if (n > k->map_cap) {
    size_t cap = n < 64 ? 64 : (size_t)n;
    k->ks = realloc(k->ks, cap * sizeof *k->ks);
    k->kl = realloc(k->kl, cap * sizeof *k->kl);
    k->vs = realloc(k->vs, cap * sizeof *k->vs);
    k->vl = realloc(k->vl, cap * sizeof *k->vl);
    if (!k->ks || !k->kl || !k->vs || !k->vl) abort();
    k->map_cap = cap;
  }
  size_t *ks = k->ks, *kl = k->kl, *vs = k->vs, *vl = k->vl;
  for (size_t i = 0; i < n; i++) {
    str(k, key_at, &ks[i], &kl[i]);
    for (size_t j = 0; j < kl[i]; j++)
      if (k->b[ks[i] + j] >= 0x80) return NEEDS_JS;
  }
  for (size_t i = 0; i < n; i++) str(k, value_at, &vs[i], &vl[i]);
  if (k->err) return k->err;
  /* Stable insertion sort by bytes, then length: JS string order for ASCII keys (native-entries.ts). */
  for (size_t i = 1; i < n; i++) {
    size_t s = ks[i], l = kl[i], s2 = vs[i], l2 = vl[i];
    size_t j = i;
    while (j > 0) {
      size_t m = kl[j - 1] < l ? kl[j - 1] : l;
      int d = memcmp(k->b + ks[j - 1], k->b + s, m);
      if (d < 0 || (d == 0 && kl[j - 1] <= l)) break;
      ks[j] = ks[j - 1];
      kl[j] = kl[j - 1];
      vs[j] = vs[j - 1];
      vl[j] = vl[j - 1];
      j--;
    }
    ks[j] = s;
    kl[j] = l;
    vs[j] = s2;
    vl[j] = l2;
  }
  varint(t, n);
  for (size_t i = 0; i < n; i++) {
    bytes_(t, k->b + ks[i], kl[i]);
    bytes_(t, k->b + vs[i], vl[i]);
  }
  return OK;
}

/* The offset ending row r of an array column, checked against the previous one. */
static inline uint64_t offset_end(block *k, size_t base, size_t r, uint64_t previous) {
  uint64_t e = u64at(k, base + 8 * r);
  if (e < previous || e - previous > k->n) k->err = MALFORMED;
  return e;
}

/* Row r's value of one column, in canonical version 2 (canonical.ts `rowBytes`). */
static int write_value(buf *t, block *k, column *col, size_t r, column *start, column *end) {
  size_t s, l;
  switch (col->layout) {
    case STR:
      str(k, &col->a, &s, &l);
      if (k->err) return k->err;
      bytes_(t, k->b + s, l);
      return OK;
    case EMPTY:
      put(t, 0);
      return OK;
    case BOOL:
      if (col->a + r >= k->n) return MALFORMED;
      put(t, k->b[col->a + r] == 1);
      return OK;
    case U64:
    case I64:
      u64_(t, u64at(k, col->a + 8 * r));
      return k->err;
    case NULL_U64:
    case NULL_I64:
      if (col->a + r >= k->n) return MALFORMED;
      if (k->b[col->a + r] == 1) {
        put(t, 1);
        return OK;
      }
      put(t, 0);
      u64_(t, u64at(k, col->b + 8 * r));
      return k->err;
    case ARR_STR: {
      uint64_t e = offset_end(k, col->a, r, col->end);
      if (k->err) return k->err;
      varint(t, e - col->end);
      for (uint64_t i = col->end; i < e; i++) {
        str(k, &col->b, &s, &l);
        if (k->err) return k->err;
        bytes_(t, k->b + s, l);
      }
      col->end = e;
      return OK;
    }
    case ARR_I64: {
      uint64_t e = offset_end(k, col->a, r, col->end);
      if (k->err) return k->err;
      if (col->b + 8 * e > k->n) return MALFORMED;
      varint(t, e - col->end);
      puts_(t, (const char *)k->b + col->b + 8 * col->end, 8 * (e - col->end));
      col->end = e;
      return OK;
    }
    case MAP: {
      uint64_t e = offset_end(k, col->a, r, col->end);
      if (k->err) return k->err;
      int rc = write_map(t, k, &col->b, &col->c, e - col->end);
      col->end = e;
      return rc;
    }
    case ARR_MAP: {
      uint64_t e = offset_end(k, col->a, r, col->end);
      if (k->err) return k->err;
      varint(t, e - col->end);
      for (uint64_t m = col->end; m < e; m++) {
        uint64_t pairs = offset_end(k, col->b, m, col->end2);
        if (k->err) return k->err;
        int rc = write_map(t, k, &col->c, &col->d, pairs - col->end2);
        if (rc) return rc;
        col->end2 = pairs;
      }
      col->end = e;
      return OK;
    }
    case DURATION: {
      /* max(end - start, 0) over the Int64 nanoseconds, wrapped to 64 bits as ClickHouse computes it. */
      int64_t d = (int64_t)(u64at(k, end->a + 8 * r) - u64at(k, start->a + 8 * r));
      u64_(t, d > 0 ? (uint64_t)d : 0);
      return k->err;
    }
    default:
      return MALFORMED;
  }
}

/* Whether every string cursor stopped where its part ends: else the block's columns were not where they were said. */
static int stopped(const column *cols, size_t ncols) {
  for (size_t i = 0; i < ncols; i++) {
    const column *c = &cols[i];
    switch (c->layout) {
      case STR:
        if (c->a != c->stop) return MALFORMED;
        break;
      case ARR_STR:
        if (c->b != c->stop) return MALFORMED;
        break;
      case MAP:
        if (c->b != c->stop || c->c != c->stop2) return MALFORMED;
        break;
      case ARR_MAP:
        if (c->c != c->stop || c->d != c->stop2) return MALFORMED;
        break;
    }
  }
  return OK;
}

static napi_value hash_rows(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8], result;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 7) {
    napi_throw_type_error(env, NULL, "hashRows(body, columns, rows, prefix, start, end, out)");
    return NULL;
  }
  void *body, *prefix, *out, *desc;
  size_t body_len, prefix_len, out_len, desc_len;
  napi_typedarray_type type;
  napi_value ab;
  size_t ab_offset;
  uint32_t rows, start_i, end_i;
  if (napi_get_buffer_info(env, argv[0], &body, &body_len) != napi_ok ||
      napi_get_typedarray_info(env, argv[1], &type, &desc_len, &desc, &ab, &ab_offset) != napi_ok ||
      type != napi_float64_array || desc_len % 7 != 0 || napi_get_value_uint32(env, argv[2], &rows) != napi_ok ||
      napi_get_buffer_info(env, argv[3], &prefix, &prefix_len) != napi_ok ||
      napi_get_value_uint32(env, argv[4], &start_i) != napi_ok ||
      napi_get_value_uint32(env, argv[5], &end_i) != napi_ok ||
      napi_get_buffer_info(env, argv[6], &out, &out_len) != napi_ok || out_len < (size_t)rows * 32) {
    napi_throw_type_error(env, NULL, "hashRows: bad arguments");
    return NULL;
  }
  bool text_only = false;
  if (argc >= 8 && napi_get_value_bool(env, argv[7], &text_only) != napi_ok) text_only = false;
  size_t ncols = desc_len / 7;
  const double *d = desc;
  column *cols = calloc(ncols ? ncols : 1, sizeof *cols);
  if (!cols) abort();
  int rc = OK;
  for (size_t i = 0; i < ncols; i++) {
    double v[7];
    memcpy(v, d + 7 * i, sizeof v);
    if (!(v[0] >= STR && v[0] <= EMPTY)) rc = MALFORMED;
    for (int j = 1; j < 7; j++)
      if (!(v[j] >= 0 && v[j] <= (double)body_len)) rc = MALFORMED;
    if (rc != OK) break;
    cols[i].layout = (int)v[0];
    cols[i].a = (size_t)v[1];
    cols[i].b = (size_t)v[2];
    cols[i].c = (size_t)v[3];
    cols[i].d = (size_t)v[4];
    cols[i].stop = (size_t)v[5];
    cols[i].stop2 = (size_t)v[6];
  }
  if (start_i >= ncols || end_i >= ncols) rc = MALFORMED;
  block k = {body, body_len, OK, NULL, NULL, NULL, NULL, 0};
  buf row = {NULL, 0, 0};
  /* One fetched SHA-256 and one context for the block: the one-shot SHA256() fetches the algorithm per call. */
  EVP_MD *sha256 = EVP_MD_fetch(NULL, "SHA2-256", NULL);
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  if (!sha256 || !ctx) rc = MALFORMED;
  uint8_t *o = out;
  for (uint32_t r = 0; r < rows && rc == OK; r++) {
    row.len = 0;
    puts_(&row, prefix, prefix_len);
    for (size_t i = 0; i < ncols && rc == OK; i++) rc = write_value(&row, &k, &cols[i], r, &cols[start_i], &cols[end_i]);
    if (rc != OK) break;
    if (text_only) continue;
    if (!EVP_DigestInit_ex2(ctx, sha256, NULL) || !EVP_DigestUpdate(ctx, row.p, row.len) ||
        !EVP_DigestFinal_ex(ctx, o + 32 * (size_t)r, NULL)) {
      rc = MALFORMED;
      break;
    }
  }
  if (rc == OK) rc = stopped(cols, ncols);
  EVP_MD_CTX_free(ctx);
  EVP_MD_free(sha256);
  free(cols);
  free(row.p);
  free(k.ks);
  free(k.kl);
  free(k.vs);
  free(k.vl);
  napi_create_int32(env, rc, &result);
  return result;
}

/* SHA-256(tag || in[i * size .. (i + 1) * size)) into out[i * 32 ..] for each of n inputs. */
static int tagged_hashes(uint8_t tag, const uint8_t *in, size_t size, size_t n, uint8_t *out) {
  EVP_MD *sha256 = EVP_MD_fetch(NULL, "SHA2-256", NULL);
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  int rc = sha256 && ctx ? OK : MALFORMED;
  uint8_t digest[32];
  for (size_t i = 0; i < n && rc == OK; i++) {
    /* Digest first, then copy: out may overlap the input already read (a fold in place). */
    if (!EVP_DigestInit_ex2(ctx, sha256, NULL) || !EVP_DigestUpdate(ctx, &tag, 1) ||
        !EVP_DigestUpdate(ctx, in + i * size, size) || !EVP_DigestFinal_ex(ctx, digest, NULL))
      rc = MALFORMED;
    else
      memcpy(out + i * 32, digest, 32);
  }
  EVP_MD_CTX_free(ctx);
  EVP_MD_free(sha256);
  return rc;
}

/* leafHashes(entries, out) and nodeHashes(pairs, out): one call for a whole batch of leaves or a tile level. */
static napi_value tree_hashes(napi_env env, napi_callback_info info, uint8_t tag, size_t size) {
  size_t argc = 2;
  napi_value argv[2], result;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  void *in, *out;
  size_t in_len, out_len;
  if (argc < 2 || napi_get_buffer_info(env, argv[0], &in, &in_len) != napi_ok ||
      napi_get_buffer_info(env, argv[1], &out, &out_len) != napi_ok || in_len % size != 0 ||
      out_len < in_len / size * 32) {
    napi_throw_type_error(env, NULL, tag ? "nodeHashes(pairs, out)" : "leafHashes(entries, out)");
    return NULL;
  }
  napi_create_int32(env, tagged_hashes(tag, in, size, in_len / size, out), &result);
  return result;
}

static napi_value leaf_hashes(napi_env env, napi_callback_info info) { return tree_hashes(env, info, 0, 32); }

static napi_value node_hashes(napi_env env, napi_callback_info info) { return tree_hashes(env, info, 1, 64); }

/* Where `count` Native strings from `at` end; -1 past the end. Only varint lengths are read, each checked. */
static double skip_strings(const uint8_t *b, size_t n, double at_d, double count_d) {
  if (!(at_d >= 0 && at_d <= (double)n && count_d >= 0 && count_d <= (double)n)) return -1;
  size_t at = (size_t)at_d;
  for (size_t i = (size_t)count_d; i > 0; i--) {
    if (at >= n) return -1;
    uint8_t c = b[at++];
    if (c < 0x80) {
      at += c;
      continue;
    }
    uint64_t len = c & 0x7f;
    int shift = 7;
    for (;;) {
      if (at >= n || shift > 56) return -1;
      c = b[at++];
      len |= (uint64_t)(c & 0x7f) << shift;
      if (c < 0x80) break;
      shift += 7;
    }
    if (len > n - at) return -1;
    at += (size_t)len;
  }
  return at <= n ? (double)at : -1;
}

static napi_value skip_strings_js(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  void *b;
  size_t n;
  double at, count;
  if (argc < 3 || napi_get_buffer_info(env, argv[0], &b, &n) != napi_ok ||
      napi_get_value_double(env, argv[1], &at) != napi_ok || napi_get_value_double(env, argv[2], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "skipStrings(body, at, count)");
    return NULL;
  }
  napi_create_double(env, skip_strings(b, n, at, count), &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "hashRows", NAPI_AUTO_LENGTH, hash_rows, NULL, &fn);
  napi_set_named_property(env, exports, "hashRows", fn);
  napi_create_function(env, "leafHashes", NAPI_AUTO_LENGTH, leaf_hashes, NULL, &fn);
  napi_set_named_property(env, exports, "leafHashes", fn);
  napi_create_function(env, "nodeHashes", NAPI_AUTO_LENGTH, node_hashes, NULL, &fn);
  napi_set_named_property(env, exports, "nodeHashes", fn);
  napi_create_function(env, "skipStrings", NAPI_AUTO_LENGTH, skip_strings_js, NULL, &fn);
  napi_set_named_property(env, exports, "skipStrings", fn);
  return exports;
}
