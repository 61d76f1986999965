/*
 * A QEMU TCG plugin (QEMU 7.2's plugin API) that counts the guest instructions
 * executed, like QEMU's tests/plugin/insn.c and bb.c, and reports the running
 * count whenever the guest makes the marker system call, so that one process
 * can be cut into stages:
 *
 *     syscall(MARK_SYSCALL, label, value)   ->   "mark LABEL VALUE TOTAL SELF"
 *
 * TOTAL is the instructions executed so far by every thread of the process,
 * SELF those of the calling thread.  Counting is per translation block
 * (its instruction count added when the block runs, as bb.c does), each thread
 * in its own slot, so threads never race on a counter.  The marker number is no
 * Linux system call: qemu-user answers it ENOSYS, as a real kernel would.
 *
 * Build (against the qemu-plugin.h of the QEMU that loads it):
 *     gcc -O2 -shared -fPIC -I QEMU/include/qemu stagecount.c -o libstagecount.so \
 *         $(pkg-config --cflags --libs glib-2.0)
 * Run:
 *     qemu-aarch64 -plugin ./libstagecount.so -d plugin -D counts.log PROGRAM...
 */
#include <inttypes.h>
#include <stdio.h>
#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_SYSCALL 31337
#define SLOTS 1024   /* threads alive at once, by QEMU's cpu index */

static uint64_t counts[SLOTS];

static uint64_t total(void)
{
    uint64_t sum = 0;
    for (int i = 0; i < SLOTS; i++) {
        sum += __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
    }
    return sum;
}

static void tb_exec(unsigned int cpu_index, void *udata)
{
    uint64_t *slot = &counts[cpu_index % SLOTS];
    __atomic_store_n(slot, *slot + (uintptr_t)udata, __ATOMIC_RELAXED);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static void on_syscall(qemu_plugin_id_t id, unsigned int cpu_index, int64_t num,
                       uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                       uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
    if (num != MARK_SYSCALL) {
        return;
    }
    g_autofree gchar *line = g_strdup_printf(
        "mark %" PRId64 " %" PRId64 " %" PRIu64 " %" PRIu64 "\n", (int64_t)a1, (int64_t)a2,
        total(), __atomic_load_n(&counts[cpu_index % SLOTS], __ATOMIC_RELAXED));
    qemu_plugin_outs(line);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    g_autofree gchar *line = g_strdup_printf("exit %" PRIu64 "\n", total());
    qemu_plugin_outs(line);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
