/*
 * mesh_vs_mesh — do two placed meshes intersect, and where?
 *
 *   ./build/examples/mesh_vs_mesh data/suzanne.obj data/spot.obj
 *
 * Builds an OBB tree over each mesh, then slides mesh B along the x axis
 * through mesh A, centre over centre at the middle step (B's placement in A's frame is a rigid transform: a
 * quaternion w, x, y, z and a translation) and reports, at each offset, whether they
 * intersect and how many triangle pairs cross; for the first intersecting
 * placement it also names one pair by OBJ face and line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <meshquery/meshquery.h>

static mq_obbtree *load_tree(const char *path, mq_mesh **mesh)
{
    mq_diag diag;
    mq_obbtree *tree = NULL;
    if (mq_obj_load(path, NULL, mesh, NULL, &diag) != MQ_OK) {
        fprintf(stderr, "%s:%llu:%u: %s\n", diag.path, (unsigned long long)diag.line, diag.column, diag.message);
        return NULL;
    }
    if (mq_obbtree_build(*mesh, NULL, &tree, &diag) != MQ_OK) {
        fprintf(stderr, "%s: %s\n", path, diag.message);
        mq_mesh_destroy(*mesh);
        return NULL;
    }
    return tree;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s A.obj B.obj\n", argv[0]);
        return 2;
    }
    mq_mesh *mesh_a = NULL, *mesh_b = NULL;
    mq_obbtree *a = load_tree(argv[1], &mesh_a);
    if (!a)
        return 1;
    mq_obbtree *b = load_tree(argv[2], &mesh_b);
    if (!b) {
        mq_obbtree_destroy(a);
        mq_mesh_destroy(mesh_a);
        return 1;
    }

    /* Slide B from the left of A to its right: offsets in units of A's root box. */
    mq_obb root_a, root_b;
    mq_obbtree_root(a, &root_a);
    mq_obbtree_root(b, &root_b);
    float reach = 0.0f;
    for (int k = 0; k < 3; k++)
        reach += root_a.half[k] + root_b.half[k];

    int first = 1, intersecting = 0;
    for (int step = -4; step <= 4; step++) {
        float dx = reach * (float)step / 4.0f;
        /* No rotation (quaternion w, x, y, z); B's centre moved onto A's, then by dx along x. */
        mq_rigid b_to_a = {{1.0f, 0.0f, 0.0f, 0.0f},
                           {root_a.center[0] - root_b.center[0] + dx, root_a.center[1] - root_b.center[1],
                            root_a.center[2] - root_b.center[2]}};
        bool any = mq_obbtree_any_collide(a, b, &b_to_a);
        size_t pairs = mq_obbtree_collide_array(a, b, &b_to_a, NULL, 0); /* count only */
        printf("offset x=%+8.4f: %s, %zu triangle pairs\n", dx, any ? "intersect" : "apart    ", pairs);
        intersecting += any;
        if (any != (pairs > 0))
            return 1; /* the two queries must agree */
        if (any && first) {
            mq_tri_pair pair;
            mq_obbtree_collide_array(a, b, &b_to_a, &pair, 1);
            mq_triangle_source sa, sb;
            mq_mesh_triangle_source(mesh_a, pair.a, &sa);
            mq_mesh_triangle_source(mesh_b, pair.b, &sb);
            printf("  e.g. A triangle %u (OBJ line %llu) crosses B triangle %u (OBJ line %llu)\n", pair.a,
                   (unsigned long long)sa.line, pair.b, (unsigned long long)sb.line);
            first = 0;
        }
    }
    printf("%d of 9 placements intersect\n", intersecting);

    mq_obbtree_destroy(b);
    mq_obbtree_destroy(a);
    mq_mesh_destroy(mesh_b);
    mq_mesh_destroy(mesh_a);
    return 0;
}
