// The fire-time computation lives in @svc/timing (backfills in the gateway
// preview the same fire times the scheduler fires); re-exported here.
export { FireTimes, FireTimesCache, ZoneClock } from '@svc/timing';
