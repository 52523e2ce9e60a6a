/*
 * protocol/rsp_resume.h: handlers for the requests that resume the target.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_RESUME_H
#define HINDSIGHT_PROTOCOL_RSP_RESUME_H

#include "protocol/rsp_packet.h"

struct rsp_server;

/* Each returns 0 or a negative errno (connection failure); on success the
 * target runs and the stop reply follows, else s->reply has the error. */
int rsp_handle_vcont(struct rsp_server *s, struct rsp_request *req);
int rsp_handle_legacy_resume(struct rsp_server *s, struct rsp_request *req);
int rsp_handle_reverse(struct rsp_server *s, struct rsp_request *req);

#endif
