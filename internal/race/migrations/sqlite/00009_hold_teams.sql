-- +goose Up
-- A team no hold and no registration names any more is removed when its
-- last runner leaves it for another (Store.LeaveTeam): the holds' side of
-- that look by team.
CREATE INDEX race_holds_team ON race_holds (team_id) WHERE team_id IS NOT NULL;

-- +goose Down
DROP INDEX race_holds_team;
