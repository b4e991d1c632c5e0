// expect-error: 4:5: Name previously declared within scope
default {
    touch_start(integer n) { }
    touch_start(integer n) { }
}
