/*
 * The stage mark under valgrind's callgrind: a dump of the instructions counted since the
 * last one, its description naming the mark ("mark N").  Outside valgrind the client
 * request is a few no-op instructions.
 *
 *     gcc -O2 -shared -fPIC callgrind_mark.c -o libcallgrind_mark.so
 */
#include <stdio.h>
#include <valgrind/callgrind.h>

void callgrind_mark(long index)
{
    char label[32];
    snprintf(label, sizeof label, "mark %ld", index);
    CALLGRIND_DUMP_STATS_AT(label);
}
