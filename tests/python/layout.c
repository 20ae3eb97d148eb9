/* Prints the size, alignment and field offsets of the public structures the
 * Python binding mirrors with ctypes (tools/python/meshquery/_capi.py), for
 * tests/python/test_layout.py. Lines: "struct NAME SIZE ALIGN" and
 * "field NAME.FIELD OFFSET". */
#include <stddef.h>
#include <stdio.h>

#include <meshquery/meshquery.h>

#define S(T) printf("struct %s %zu %zu\n", #T, sizeof(T), _Alignof(T))
#define F(T, f) printf("field %s.%s %zu\n", #T, #f, offsetof(T, f))

int main(void)
{
    S(mq_diag);
    F(mq_diag, message);
    F(mq_diag, path);
    F(mq_diag, line);
    F(mq_diag, column);
    S(mq_ray);
    F(mq_ray, origin);
    F(mq_ray, tmin);
    F(mq_ray, dir);
    F(mq_ray, tmax);
    S(mq_aabb);
    F(mq_aabb, min);
    F(mq_aabb, max);
    S(mq_obb);
    F(mq_obb, center);
    F(mq_obb, half);
    F(mq_obb, axes);
    S(mq_sphere);
    F(mq_sphere, center);
    F(mq_sphere, radius);
    S(mq_capsule);
    F(mq_capsule, a);
    F(mq_capsule, b);
    F(mq_capsule, radius);
    S(mq_triangle);
    F(mq_triangle, v);
    S(mq_hit);
    F(mq_hit, t);
    F(mq_hit, point);
    F(mq_hit, normal);
    F(mq_hit, u);
    F(mq_hit, v);
    F(mq_hit, triangle);
    F(mq_hit, face);
    F(mq_hit, back_face);
    F(mq_hit, has_shading_normal);
    F(mq_hit, has_uv);
    F(mq_hit, shading_normal);
    F(mq_hit, uv);
    F(mq_hit, group);
    F(mq_hit, object);
    F(mq_hit, material);
    S(mq_ray_stats);
    F(mq_ray_stats, node_visits);
    F(mq_ray_stats, leaf_visits);
    F(mq_ray_stats, triangle_tests);
    S(mq_ray_query);
    F(mq_ray_query, cull_back_faces);
    F(mq_ray_query, filter);
    F(mq_ray_query, filter_user);
    F(mq_ray_query, stats);
    S(mq_point_hit);
    F(mq_point_hit, point);
    F(mq_point_hit, distance);
    F(mq_point_hit, triangle);
    F(mq_point_hit, u);
    F(mq_point_hit, v);
    S(mq_rigid);
    F(mq_rigid, rotation);
    F(mq_rigid, translation);
    S(mq_tri_pair);
    F(mq_tri_pair, a);
    F(mq_tri_pair, b);
    S(mq_triangle_source);
    F(mq_triangle_source, face);
    F(mq_triangle_source, line);
    F(mq_triangle_source, group_id);
    F(mq_triangle_source, object_id);
    F(mq_triangle_source, material_id);
    F(mq_triangle_source, group);
    F(mq_triangle_source, object);
    F(mq_triangle_source, material);
    S(mq_obj_options);
    F(mq_obj_options, allocator);
    F(mq_obj_options, threads);
    F(mq_obj_options, allow_non_finite);
    F(mq_obj_options, strict);
    F(mq_obj_options, max_face_vertices);
    S(mq_obj_stats);
    F(mq_obj_stats, bytes);
    F(mq_obj_stats, lines);
    F(mq_obj_stats, vertices);
    F(mq_obj_stats, texcoords);
    F(mq_obj_stats, normals);
    F(mq_obj_stats, faces);
    F(mq_obj_stats, triangles);
    F(mq_obj_stats, clipped_faces);
    F(mq_obj_stats, line_elements);
    F(mq_obj_stats, point_elements);
    F(mq_obj_stats, colored_vertices);
    F(mq_obj_stats, non_finite_values);
    F(mq_obj_stats, ignored_statements);
    F(mq_obj_stats, unknown_statements);
    F(mq_obj_stats, first_unknown_line);
    F(mq_obj_stats, groups);
    F(mq_obj_stats, objects);
    F(mq_obj_stats, materials);
    F(mq_obj_stats, threads);
    S(mq_bvh_def);
    F(mq_bvh_def, quality);
    F(mq_bvh_def, max_leaf_size);
    F(mq_bvh_def, threads);
    F(mq_bvh_def, allocator);
    F(mq_bvh_def, internal_cookie);
    S(mq_bvh_stats);
    F(mq_bvh_stats, triangle_count);
    F(mq_bvh_stats, node_count);
    F(mq_bvh_stats, leaf_count);
    F(mq_bvh_stats, block_count);
    F(mq_bvh_stats, max_depth);
    F(mq_bvh_stats, width);
    F(mq_bvh_stats, sah_cost);
    F(mq_bvh_stats, avg_leaf_size);
    F(mq_bvh_stats, avg_children);
    F(mq_bvh_stats, bytes_per_triangle);
    F(mq_bvh_stats, build_ms);
    S(mq_obbtree_stats);
    F(mq_obbtree_stats, triangle_count);
    F(mq_obbtree_stats, node_count);
    F(mq_obbtree_stats, leaf_count);
    F(mq_obbtree_stats, max_depth);
    F(mq_obbtree_stats, total_volume);
    F(mq_obbtree_stats, avg_leaf_size);
    F(mq_obbtree_stats, bytes_per_triangle);
    S(mq_shape);
    F(mq_shape, kind);
    F(mq_shape, u);
    S(mq_obbtree_def);
    F(mq_obbtree_def, fit);
    F(mq_obbtree_def, max_leaf_size);
    F(mq_obbtree_def, allocator);
    F(mq_obbtree_def, internal_cookie);
    /* enums passed as ctypes c_int */
    printf("enum mq_build_quality %zu\n", sizeof(mq_build_quality));
    printf("enum mq_obb_fit %zu\n", sizeof(mq_obb_fit));
    printf("enum mq_status %zu\n", sizeof(mq_status));
    printf("enum mq_shape_kind %zu\n", sizeof(mq_shape_kind));
    return 0;
}
