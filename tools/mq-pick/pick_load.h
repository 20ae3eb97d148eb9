/*
 * One mesh argument: an OBJ file (parsed, then the hierarchies a query needs are
 * built) or a hierarchy saved by --save / mq_bvh_save / mq_obbtree_save
 * (recognised by its magic bytes, loaded instead; it owns its mesh).
 */
#ifndef MQ_PICK_LOAD_H
#define MQ_PICK_LOAD_H

#include <stdbool.h>

#include <meshquery/bvh.h>
#include <meshquery/kdoptree.h>
#include <meshquery/obbtree.h>
#include <meshquery/spheretree.h>

typedef enum pick_origin { PICK_FROM_OBJ, PICK_FROM_SAVED_BVH, PICK_FROM_SAVED_OBBTREE } pick_origin;

typedef struct pick_model {
    const char *path;
    pick_origin origin;
    mq_mesh *obj_mesh;     /* PICK_FROM_OBJ: the parsed mesh, owned */
    const mq_mesh *mesh;   /* the mesh to use, whoever owns it */
    mq_bvh *bvh;           /* loaded, or built by pick_model_bvh */
    mq_obbtree *obbtree;   /* loaded, or built by pick_model_obbtree */
    mq_kdoptree *kdop;     /* built by pick_model_tree for --hierarchy kdop */
    mq_spheretree *sphere; /* built by pick_model_tree for --hierarchy sphere */
} pick_model;

/* Loads `path` (strict: unknown OBJ statements are errors); prints "mq-pick: path:line:column:
 * what" (OBJ) or what is wrong with a saved file and returns false on failure. */
bool pick_model_load(pick_model *m, const char *path, bool strict);

/* Makes sure m->bvh exists (built on `threads` threads unless loaded); false after an error message. */
bool pick_model_bvh(pick_model *m, uint32_t threads);

/* Makes sure m->obbtree exists ("obb": DiTO boxes, "aabb": world axes, unless loaded). */
bool pick_model_obbtree(pick_model *m, const char *hierarchy);

/* Makes sure the tree of --hierarchy exists: the k-DOP tree (k = 18) for "kdop", the sphere
 * tree for "sphere", else the OBB tree as pick_model_obbtree; false after an error message. */
bool pick_model_tree(pick_model *m, const char *hierarchy);

/* Frees what the model owns (the built hierarchies before what they reference). */
void pick_model_free(pick_model *m);

#endif
