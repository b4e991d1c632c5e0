integer gi = -5; float gf = 1.5e2; string gs = "a\tb"; key gk = "k";
vector gv = <1, 2.5, -3>; rotation gr = <0., .5, 0, 1>; list gl = [1, "x", <0,0,0>];
integer add(integer a, integer b) { return a + b; }
default {
  state_entry() {
    integer x = 1 + 2 * 3 - 4 / 2 % 3;
    x = a || b && c | d ^ e & f == g != h < i <= j > k >= l << m >> n;
    x += 1; x -= 2; x *= 3; x /= 4; x %= 5; x = y = z;
    ++x; --x; x++; x--; -x; !x; ~x;
    v.x = (float)x; l = (list)x + [] + [v.z];
    if (x) ; else if (y) { } else x = 0;
    for (i = 0, j = 1; i < 10; ++i, j *= 2) x++;
    do x--; while (x > 0);
    while (x < <1,2,3>.z) { @out; jump out; }
    state other;
  }
}
state other { state_entry() { state default; } }
