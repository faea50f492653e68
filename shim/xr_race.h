/*
 * What a receive would get from another candidate message: the C side
 * of the message-race decision (xr_race.c) asks the Go model (xr_race.go)
 * when the signatures' bytes alone do not settle it. No MPI types here:
 * the Go file includes this header.
 */
#ifndef MPIDBG_XR_RACE_H
#define MPIDBG_XR_RACE_H

#include <stdint.h>

struct mpidbg_xrfit {
    const uint8_t *ssig, *rsig; /* the message's and the receive's signature bytes (datatype.Sig) */
    int32_t ssiglen, rsiglen;
    int64_t scount, rcount;
    /* out */
    char text[512]; /* checks.RaceFit.Text */
};

/* 0: the message fits the receive; 1: it does not (text says how); -1:
 * the model cannot tell. */
extern int mpidbg_go_race_fit(struct mpidbg_xrfit *f);

#endif
