/* Recording and replaying a scheduler history (replay.c).  Above the
 * store, below the scheduler. */
#ifndef SB_FAKE_REPLAY_H
#define SB_FAKE_REPLAY_H

#include "fake/fake.h"

/* In replay mode loads the snapshot at the replay clock and sets the clock;
 * returns 1 when replaying, 0 when not, -1 on error. */
int fake_replay_sync(struct fake_state *st);
/* 1 when the store is in replay mode (no scheduling, no submissions). */
int fake_replaying(struct fake_state *st);
/* sbfake record / sbfake replay. */
int fake_record_main(int argc, char **argv);
int fake_replay_main(int argc, char **argv);

#endif
