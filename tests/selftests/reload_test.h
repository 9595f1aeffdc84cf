/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests that load, unload or re-attach the module. Attaching and
 * detaching wait for RCU and RCU-tasks grace periods, seconds each under
 * TCG on a loaded host and longer on 6.12 than on 6.1, so the harness's
 * 30 s default is too short a guard against a hang for them: such a test
 * is TEST_RELOADS(name) and gets five minutes. Nothing here measures
 * time; the limit only ends a test that would never end.
 */
#ifndef FTAGENT_RELOAD_TEST_H
#define FTAGENT_RELOAD_TEST_H

FIXTURE(reload){};
FIXTURE_SETUP(reload)
{
}
FIXTURE_TEARDOWN(reload)
{
}

#define TEST_RELOADS(name) TEST_F_TIMEOUT(reload, name, 300)

#endif /* FTAGENT_RELOAD_TEST_H */
