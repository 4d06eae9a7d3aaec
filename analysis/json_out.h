/* json_out.h -- the one JSON emitter of the commands: values, and objects
 * and arrays nested as they come, written to a stream with the layout of
 * cosa's documents (doc/output-formats.md).  The table writer's JSON back
 * end (table_writer.c) and advise's document (advise_json.c) both write
 * through it.
 *
 * A container is either inline (members joined by ", " on its line) or a
 * block (every member on a line of its own, indented two spaces per block
 * level; the closing bracket on a line of its own, or, JO_TIGHT, right
 * after the last member).  An empty container is "[]" or "{}".  Inline
 * containers add no indentation level.
 *
 * Numbers are written with %.17g (they read back to the same double).  JSON
 * has no numbers for inf, -inf and nan: jo_double writes them as the
 * strings "inf", "-inf", "nan" (the table writer: the same words as the
 * text form), jo_finite writes null (advise: "no such number").  Strings
 * are escaped: '"' and '\\' with a backslash, control characters as
 * \u00XX.  Writes are not checked here: the caller checks its stream
 * (ferror) at the end. */
#ifndef COSA_JSON_OUT_H
#define COSA_JSON_OUT_H

#include <stddef.h>
#include <stdio.h>

typedef enum jo_layout { JO_INLINE, JO_BLOCK, JO_TIGHT } jo_layout;

#define JO_MAX_DEPTH 8

typedef struct json_out {
    FILE *f;
    int depth;   /* open containers                                  */
    int level;   /* block level of the outermost container           */
    int key;     /* a key was written: the next value is its value   */
    int err;     /* nested deeper than JO_MAX_DEPTH, or closed too often */
    struct jo_frame {
        unsigned char layout;
        unsigned char close;  /* '}' or ']'                           */
        int level;            /* its members' block level             */
        size_t n;             /* members so far                       */
    } st[JO_MAX_DEPTH];
} json_out;

/* Start writing values on f; level: the block level of the outermost
 * container (0 for a document of its own, 1 for a part that goes into a
 * document's top object). */
void jo_init(json_out *j, FILE *f, int level);

/* Open an object or an array (a value: after a key, in an array, or at the
 * top); close the innermost one. */
void jo_object(json_out *j, jo_layout layout);
void jo_array(json_out *j, jo_layout layout);
void jo_close(json_out *j);

/* The end of a document: every open container closed, a newline.  0, or
 * -1 when the nesting went wrong or a write to the stream failed (its
 * error flag). */
int jo_end(json_out *j);

/* The members written so far in the innermost container. */
size_t jo_count(const json_out *j);

/* An object's key (its value follows). */
void jo_key(json_out *j, const char *name);

/* Values: a string (NULL as ""), n bytes of s; a double (non-finite as the
 * strings "inf", "-inf", "nan"), a double or null when it is not finite; an
 * integer; a size; true or false; null; a number word as a text form wrote
 * it (its characters when they are a JSON number, else jo_double of its
 * value); the value of a 'name value' line's text (null when empty, a
 * number, an array of numbers, else the string); JSON text already formed. */
void jo_string(json_out *j, const char *s);
void jo_string_n(json_out *j, const char *s, size_t n);
void jo_double(json_out *j, double v);
void jo_finite(json_out *j, double v);
void jo_int(json_out *j, long v);
void jo_size(json_out *j, size_t v);
void jo_bool(json_out *j, int b);
void jo_null(json_out *j);
void jo_word(json_out *j, const char *t, size_t n);
void jo_text_value(json_out *j, const char *s, size_t n);
void jo_raw(json_out *j, const char *text, size_t n);

/* Is the word t[0..n-1] a number (strtod reads all of it, also inf and
 * nan)?  *v its value. */
int jo_is_number(const char *t, size_t n, double *v);

/* The next word of s[*i..n): its start and length; 0 at the end. */
int jo_next_word(const char *s, size_t n, size_t *i, const char **t, size_t *len);

#endif
