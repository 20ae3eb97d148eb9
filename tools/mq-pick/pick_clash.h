/* mq-pick --clash (clash detection over the placed meshes) and --contacts (a shape's contacts per triangle). */
#ifndef MQ_PICK_CLASH_H
#define MQ_PICK_CLASH_H

#include <stdio.h>

#include "pick_args.h"

/* --clash [--clearance D]: every pair of placed meshes within D, sorted. Returns the exit status. */
int pick_run_clash(const pick_options *o);

/* --contacts with shapes: per shape, the contact with every triangle it overlaps. Returns the exit status. */
int pick_run_contacts(const pick_options *o);

/* A JSON string literal (RFC 8259 escapes), written to f. */
void pick_clash_json_string(FILE *f, const char *s);

/* A CSV field, quoted when it holds a separator, quote or line break. */
void pick_clash_csv_string(FILE *f, const char *s);

#endif
