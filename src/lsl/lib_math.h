/* Vector and rotation arithmetic with LSL's conventions, shared by the
 * native library (llRot2Fwd, ...) and the VM's operators.
 *
 * A rotation is a quaternion <x, y, z, s>.  LSL composes left to right:
 * `a * b` means "rotate by a, then by b", which is the Hamilton product b⊗a;
 * `v * r` rotates vector v by r (r ⊗ v ⊗ r*); `a / b` is a * conjugate(b)
 * and `v / r` is v * conjugate(r).  All computed in double, stored as float. */
#ifndef GSVM_LSL_LIB_MATH_H
#define GSVM_LSL_LIB_MATH_H

/* out may alias the inputs. */
void lsl_rot_mul(const float a[4], const float b[4], float out[4]);    /* a * b */
void lsl_rot_div(const float a[4], const float b[4], float out[4]);    /* a / b */
void lsl_vec_rot(const float v[3], const float r[4], float out[3]);    /* v * r */
void lsl_vec_unrot(const float v[3], const float r[4], float out[3]);  /* v / r */
float lsl_vec_dot(const float a[3], const float b[3]);                  /* a * b */
void lsl_vec_cross(const float a[3], const float b[3], float out[3]);  /* a % b */

#endif
